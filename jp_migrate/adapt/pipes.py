"""The adapter's own stdin and stdout as async pipes, read and written without threads.

The SDK's stdio server reads stdin line by line in a worker thread: each message
then costs a thread hand-off, and a blocked read keeps the process from exiting
until the client closes stdin. When both are pipes (as an MCP host starts a
server) the event loop waits on them directly instead.
"""

from __future__ import annotations

import os
import stat
from typing import Any

import anyio

MAX_READ = 65536


def is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class PipeLines:
    """An fd's lines as they come (`async for line in …`), decoded as UTF-8."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        os.set_blocking(fd, False)

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line, self.buffer = self.buffer[: end + 1], self.buffer[end + 1 :]
                return line.decode("utf-8", "replace")
            await anyio.wait_readable(self.fd)
            try:
                data = os.read(self.fd, MAX_READ)
            except BlockingIOError:
                continue
            if not data:
                if self.buffer:
                    line, self.buffer = self.buffer, b""
                    return line.decode("utf-8", "replace")
                raise StopAsyncIteration
            self.buffer += data


class PipeWriter:
    """Text written to an fd as UTF-8, each write whole before the next (`write`, `flush`)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)

    async def write(self, text: str) -> None:
        data = memoryview(text.encode("utf-8"))
        while data:
            await anyio.wait_writable(self.fd)
            try:
                written = os.write(self.fd, data)
            except BlockingIOError:
                continue
            data = data[written:]

    async def flush(self) -> None:
        """Nothing is buffered: `write` returns once the pipe took every byte."""


def claim_stdio() -> tuple[Any, Any] | None:
    """Our stdin and stdout as pipes of our own (fd 0 then reads /dev/null, fd 1 writes to
    stderr, so nothing else can touch the protocol); None when they are not both pipes."""
    if not (is_pipe(0) and is_pipe(1)):
        return None
    stdin, stdout = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return PipeLines(stdin), PipeWriter(stdout)
