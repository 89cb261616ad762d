"""The relay's byte streams: lines read from an fd by a thread of their own, lines written whole.

Each direction is a thread blocked in `read`: a message is handled as soon as the
kernel hands it over, with no event loop between them. A line is searched for its
end only in the bytes that just came (linear in the input, whatever the line's
length), and a line longer than the limit is not kept: what is left of it is its
size and its first and last bytes, enough to tell whose message it was.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from jp_migrate.adapt.limits import MAX_MESSAGE

MAX_READ = 65536
EDGE_BYTES = 4096  # of a line over the limit, kept from its start and from its end


class Oversize:
    """A line longer than the limit, read to its end and dropped: its size in bytes (its
    newline not counted) and its first and last EDGE_BYTES."""

    __slots__ = ("head", "size", "tail")

    def __init__(self, head: bytes, tail: bytes, size: int) -> None:
        self.head = head
        self.tail = tail
        self.size = size


class Lines:
    """Bytes as they come, cut into lines (each with its newline; a line may arrive in parts,
    a UTF-8 character too); a line over `limit` bytes (its newline not counted) comes out
    as an `Oversize`."""

    def __init__(self, limit: int = MAX_MESSAGE) -> None:
        self.limit = limit
        self.buffer = bytearray()
        self.over: Oversize | None = None  # the line being skipped

    def feed(self, data: bytes) -> list[bytes | Oversize]:
        whole = data.find(b"\n") == len(data) - 1 and len(data) <= self.limit + 1
        if whole and not self.buffer and self.over is None:
            return [data]  # one whole message, as a peer writes most of them
        lines: list[bytes | Oversize] = []
        start = 0
        while (end := data.find(b"\n", start)) >= 0:
            self._add(data, start, end)
            lines.append(self._take(newline=True))
            start = end + 1
        if start < len(data):
            self._add(data, start, len(data))
        return lines

    def _add(self, data: bytes, start: int, end: int) -> None:
        """Bytes of the current line (its newline excluded): kept, or only counted once it
        is over the limit."""
        over = self.over
        if over is None and len(self.buffer) + end - start <= self.limit:
            self.buffer += memoryview(data)[start:end]
            return
        if over is None:
            head = bytes(self.buffer[:EDGE_BYTES])
            if len(head) < EDGE_BYTES:
                head += data[start : start + EDGE_BYTES - len(head)]
            over = self.over = Oversize(head, bytes(self.buffer[-EDGE_BYTES:]), len(self.buffer))
            self.buffer = bytearray()
        over.size += end - start
        over.tail = (over.tail + data[max(start, end - EDGE_BYTES) : end])[-EDGE_BYTES:]

    def _take(self, *, newline: bool) -> bytes | Oversize:
        if self.over is not None:
            over, self.over = self.over, None
            return over
        line, self.buffer = self.buffer, bytearray()  # handed on, not copied
        if newline:
            line += b"\n"
        return line

    def rest(self) -> bytes | Oversize | None:
        """What came after the last newline, at the end of the stream (None if nothing)."""
        if not self.buffer and self.over is None:
            return None
        return self._take(newline=True)


def read_lines(
    fd: int, on_line: Callable[[bytes | Oversize], None], limit: int = MAX_MESSAGE
) -> None:
    """Call `on_line` with each line `fd` gives, the last one even without its newline,
    until the end of the stream (or a read error: the other side is gone either way)."""
    lines = Lines(limit)
    while True:
        try:
            data = os.read(fd, MAX_READ)
        except OSError:
            break
        if not data:
            break
        for line in lines.feed(data):
            on_line(line)
    rest = lines.rest()
    if rest is not None:
        on_line(rest)


class Sink:
    """An fd written one whole line at a time, whichever thread writes (a line longer than a
    pipe holds is never interleaved with another)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()
        self.broken = False  # the reader went: it has stopped listening

    def write(self, data: bytes) -> None:
        with self.lock:
            view = memoryview(data)
            while view and not self.broken:
                try:
                    view = view[os.write(self.fd, view) :]
                except OSError:
                    self.broken = True

    def close(self) -> None:
        with self.lock:
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1
                self.broken = True


def claim_stdio() -> tuple[int, int]:
    """Our stdin and stdout as fds of our own; fd 0 then reads /dev/null and fd 1 writes to
    stderr, so nothing else (a stray print) can touch the protocol."""
    stdin, stdout = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return stdin, stdout
