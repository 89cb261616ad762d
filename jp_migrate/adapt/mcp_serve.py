"""The `adapt --mcp` session: the D31 server started, the relay between it and the client, its end.

See `adapt.mcp` for what passes through and what is converted, `adapt.relay` for how.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import tempfile
from collections.abc import Callable
from contextlib import suppress
from typing import IO, Any

from jp_migrate.adapt.mcp import say
from jp_migrate.adapt.pipes import Lines, claim_stdio, read_fd, write_fd
from jp_migrate.bridge.groups import Group

STOP_SECONDS = 0.5  # after a signal, how long the server has to exit before its group is killed
CLOSE_SECONDS = 2.0  # after the client went, how long the server has to exit on its own
EXIT_SECONDS = 1.0  # after the server closed its output, how long it has to exit (its status)
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class StartFailed(Exception):
    """The D31 server did not start (or ended before it said anything)."""


class _ServerPipes(asyncio.SubprocessProtocol):
    def __init__(self, front: Front) -> None:
        self.front = front

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self.front.server_data(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.front.server_closed()

    def process_exited(self) -> None:
        self.front.server_exited()

    def pause_writing(self) -> None:
        self.front.pause_client(True)

    def resume_writing(self) -> None:
        self.front.pause_client(False)


class Front:
    """One adapter session: start the server, relay until the client goes, stop the server."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.errlog: IO[bytes] | None = None
        self.shown = 0  # bytes of the server's stderr already passed on
        self.server_lines = Lines()
        self.client_lines = Lines()
        self.transport: asyncio.SubprocessTransport | None = None
        self.group: Group | None = None
        self.relay: Any = None
        self.client_gone = False
        self.failed: str | None = None  # why the server did not start
        self.done: asyncio.Event | None = None
        self.exited: asyncio.Event | None = None
        self.pause_client = lambda pause: None
        self.signalled: int | None = None

    # ── the server's stderr: passed on to ours, its last line kept for messages ──

    def pass_stderr(self) -> str:
        """Copy what the server wrote to stderr since last time onto ours; return its last line."""
        if self.errlog is None:
            return ""
        fd = self.errlog.fileno()
        size = os.fstat(fd).st_size
        if size > self.shown:
            sys.stderr.write(os.pread(fd, size - self.shown, self.shown).decode("utf-8", "replace"))
            sys.stderr.flush()
            self.shown = size
        if size == 0:
            return ""
        tail = os.pread(fd, min(size, 4096), max(0, size - 4096)).decode("utf-8", "replace")
        lines = tail.strip().splitlines()
        return lines[-1] if lines else ""

    # ── the session ──

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        self.done, self.exited = asyncio.Event(), asyncio.Event()
        loop.set_exception_handler(_one_line_report)
        for signum in SIGNALS:
            loop.add_signal_handler(signum, self._on_signal, signum)
        with tempfile.TemporaryFile() as errlog:
            self.errlog = errlog
            try:
                transport, _ = await loop.subprocess_exec(
                    lambda: _ServerPipes(self),
                    *self.command,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=errlog,
                    start_new_session=True,
                )
            except OSError as exc:
                raise StartFailed(f"did not start: {exc.strerror or exc}") from None
            self.transport = transport
            self.group = Group.of(transport.get_pid())
            try:
                await self._serve(transport)
            finally:
                await self._stop_server()
                self.pass_stderr()
        if self.failed is not None:
            raise StartFailed(self.failed)

    async def _serve(self, transport: asyncio.SubprocessTransport) -> None:
        # Loaded while the server starts: the SDK's models take a while to import.
        from jp_migrate.adapt.relay import Relay

        server_in = transport.get_pipe_transport(0)
        server_out = transport.get_pipe_transport(1)
        assert isinstance(server_in, asyncio.WriteTransport)
        assert isinstance(server_out, asyncio.ReadTransport)

        def to_server(line: bytes) -> None:
            if not server_in.is_closing():
                server_in.write(line)

        def pause_server(pause: bool) -> None:
            if not server_out.is_closing():
                server_out.pause_reading() if pause else server_out.resume_reading()

        early: list[bytes] = []  # what the server says before our stdout is connected
        write: list[Callable[[bytes], None]] = [early.append]
        stdin, stdout = claim_stdio()
        self.relay = Relay(
            self.command[0], lambda line: write[0](line), to_server, self.pass_stderr
        )
        self.server_data(b"")  # anything it said already
        write[0] = (await write_fd(stdout, pause_server)).write
        for line in early:
            write[0](line)
        self.pause_client = await read_fd(stdin, self.client_data, self.client_closed)
        assert self.done is not None
        await self.done.wait()

    # ── events ──

    def client_data(self, data: bytes) -> None:
        for line in self.client_lines.feed(data):
            self.relay.from_client(line)

    def client_closed(self) -> None:
        rest = self.client_lines.rest()
        if rest is not None:
            self.relay.from_client(rest)
        self.client_gone = True
        assert self.transport is not None
        server_in = self.transport.get_pipe_transport(0)
        if server_in is not None:
            server_in.close()  # the server's end of stdin: it may exit on its own
        asyncio.get_running_loop().create_task(self._close_after_client())

    async def _close_after_client(self) -> None:
        assert self.exited is not None and self.done is not None
        with suppress(TimeoutError):
            await asyncio.wait_for(self.exited.wait(), CLOSE_SECONDS)
        self.done.set()

    def server_data(self, data: bytes) -> None:
        if self.relay is None:  # not yet: the relay starts right after the server
            self.server_lines.buffer += data
            return
        for line in self.server_lines.feed(data):
            self.relay.from_server(line)
        self.pass_stderr()

    def server_closed(self) -> None:
        rest = self.server_lines.rest()
        if rest is not None and self.relay is not None:
            self.relay.from_server(rest)
        asyncio.get_running_loop().create_task(self._server_ended())

    def server_exited(self) -> None:
        assert self.exited is not None
        self.exited.set()
        if self.signalled is not None:
            self._die(self.signalled)

    async def _server_ended(self) -> None:
        """The server closed its output: the calls it owes fail, or it never started."""
        assert self.exited is not None and self.done is not None and self.transport is not None
        with suppress(TimeoutError):
            await asyncio.wait_for(self.exited.wait(), EXIT_SECONDS)
        code = self.transport.get_returncode()
        said = self.pass_stderr()
        how = _how_it_ended(code) + (f" (stderr: {said})" if said else "")
        heard = self.relay is not None and self.relay.heard
        if not heard and (not self.client_gone or code != 0):
            self.failed = f"did not start: {how}"
            self.done.set()
        elif self.relay is not None:
            self.relay.server_gone(how)

    # ── the end ──

    def _on_signal(self, signum: int) -> None:
        """SIGTERM, SIGINT or SIGHUP ends the session at once: the signal goes on to the
        server's process group (killed after STOP_SECONDS), then the adapter exits without
        waiting for its client to close stdin. The server's stderr is passed on up to the
        signal, not what it says dying of it (a Python server's KeyboardInterrupt traceback)."""
        if self.signalled is not None:
            return
        self.signalled = signum
        self.pass_stderr()
        assert self.exited is not None
        if self.group is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.group.id, signum)
        if self.group is None or self.exited.is_set():
            self._die(signum)
        else:
            asyncio.get_running_loop().call_later(STOP_SECONDS, self._die, signum)

    def _die(self, signum: int) -> None:
        if self.group is not None:
            self.group.kill()
        sys.stderr.flush()
        os._exit(128 + signum)

    async def _stop_server(self) -> None:
        """The server asked to stop (SIGTERM) if it is still there, then its group killed:
        nothing it started outlives the session."""
        assert self.exited is not None and self.group is not None
        if not self.exited.is_set():
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.group.id, signal.SIGTERM)
            with suppress(TimeoutError):
                await asyncio.wait_for(self.exited.wait(), STOP_SECONDS)
        self.group.kill()
        if self.transport is not None:
            self.transport.close()


def _one_line_report(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A failure inside the relay is one line on stderr, not a traceback; the session goes on."""
    exc = context.get("exception")
    detail = f": {type(exc).__name__}: {exc}" if exc is not None else ""
    say(f"adapt --mcp: {context.get('message', 'internal error')}{detail}")


def _how_it_ended(code: int | None) -> str:
    if code is None:
        return "it closed its output"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"it was killed by {name}"
    return f"it exited with status {code}"


def serve(command: list[str]) -> int:
    """Serve MCP on stdin/stdout until the client goes; 2 when the server cannot start."""
    try:
        asyncio.run(Front(command).run())
    except StartFailed as exc:
        say(f"MCP server {command[0]!r}: {exc}")
        return 2
    except KeyboardInterrupt:
        return 130
    return 0
