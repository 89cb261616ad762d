"""The relay's byte streams: lines read from an fd by a thread of their own, lines written whole.

Each direction is a thread blocked in `read`: a message is handled as soon as the
kernel hands it over, with no event loop between them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

MAX_READ = 65536


class Lines:
    """Bytes as they come, cut into lines (each with its newline; a line may arrive in parts,
    a UTF-8 character too)."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        if not self.buffer and data.endswith(b"\n") and data.count(b"\n") == 1:
            return [data]  # one whole message, as a peer writes most of them
        self.buffer += data
        end = self.buffer.rfind(b"\n")
        if end < 0:
            return []
        whole = bytes(self.buffer[: end + 1])
        del self.buffer[: end + 1]
        return [piece + b"\n" for piece in whole.split(b"\n")[:-1]]

    def rest(self) -> bytes | None:
        """What came after the last newline, at the end of the stream (None if nothing)."""
        if not self.buffer:
            return None
        rest, self.buffer = bytes(self.buffer), bytearray()
        return rest + b"\n"


def read_lines(fd: int, on_line: Callable[[bytes], None]) -> None:
    """Call `on_line` with each line `fd` gives, the last one even without its newline,
    until the end of the stream (or a read error: the other side is gone either way)."""
    lines = Lines()
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
