"""The adapter's own stdin and stdout, for the relay: lines in, lines out, on the event loop.

A pipe or socket (as an MCP host starts a server) is read and written by the
event loop itself, with no thread between a message and its handling; anything
else (a file, a terminal, /dev/null) is read by a thread and written directly.
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
from collections.abc import Callable
from contextlib import suppress

MAX_READ = 65536


def is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class Lines:
    """Bytes as they come, cut into lines (each with its newline; a line may arrive in parts,
    a UTF-8 character too)."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
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


class _Reading(asyncio.Protocol):
    def __init__(self, on_data: Callable[[bytes], None], on_end: Callable[[], None]) -> None:
        self.on_data = on_data
        self.on_end = on_end

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.on_end()


class _Writing(asyncio.Protocol):
    def __init__(self, pause: Callable[[bool], None]) -> None:
        self.pause = pause

    def pause_writing(self) -> None:
        self.pause(True)

    def resume_writing(self) -> None:
        self.pause(False)


async def read_fd(
    fd: int, on_data: Callable[[bytes], None], on_end: Callable[[], None]
) -> Callable[[bool], None]:
    """Feed what `fd` gives to `on_data`, then call `on_end`; returns a switch pausing the
    reading (True) or resuming it (False)."""
    loop = asyncio.get_running_loop()
    if is_pipe(fd):
        transport, _ = await loop.connect_read_pipe(
            lambda: _Reading(on_data, on_end), os.fdopen(fd, "rb", buffering=0)
        )
        return lambda pause: transport.pause_reading() if pause else transport.resume_reading()

    def pump() -> None:
        try:
            while data := os.read(fd, MAX_READ):
                loop.call_soon_threadsafe(on_data, data)
            loop.call_soon_threadsafe(on_end)
        except (OSError, RuntimeError):  # stdin failed, or the session ended first
            with suppress(RuntimeError):
                loop.call_soon_threadsafe(on_end)

    threading.Thread(target=pump, name="adapt-stdin", daemon=True).start()
    return lambda pause: None  # a thread reading a file: nothing piles up behind it


class Sink:
    """Bytes written to an fd in order (`write`), the fd closed once they are out (`close`)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.transport: asyncio.WriteTransport | None = None

    def write(self, data: bytes) -> None:
        if self.transport is not None:
            if not self.transport.is_closing():
                self.transport.write(data)
            return
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self.fd, view) :]
            except OSError:
                return  # the reader went: it has stopped listening

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
        else:
            os.close(self.fd)


async def write_fd(fd: int, pause: Callable[[bool], None]) -> Sink:
    """`fd` as a Sink; for a pipe, `pause(True)` while its buffer is full (the other side
    not reading) and `pause(False)` once it drained."""
    sink = Sink(fd)
    if is_pipe(fd):
        loop = asyncio.get_running_loop()
        sink.transport, _ = await loop.connect_write_pipe(
            lambda: _Writing(pause), os.fdopen(fd, "wb", buffering=0)
        )
    return sink


def claim_stdio() -> tuple[int, int]:
    """Our stdin and stdout as fds of our own; fd 0 then reads /dev/null and fd 1 writes to
    stderr, so nothing else (a stray print) can touch the protocol."""
    stdin, stdout = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return stdin, stdout
