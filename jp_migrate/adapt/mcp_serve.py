"""The `adapt --mcp` session: the D31 server started, the relay between it and the client, its end.

See `adapt.mcp` for what passes through and what is converted, `adapt.relay` for how.
Each direction is a thread blocked reading its side (`pipes`); the main thread only
waits for the session's end and handles signals.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from typing import Any

from jp_migrate.adapt.limits import MAX_MESSAGE
from jp_migrate.adapt.mcp import say
from jp_migrate.adapt.pipes import MAX_READ, Sink, claim_stdio, read_lines
from jp_migrate.bridge.groups import Group
from jp_migrate.lineage import Lineage, Watch

STOP_SECONDS = 0.5  # after a signal, how long the server has to exit before its group is killed
CLOSE_SECONDS = 2.0  # after the client went, how long the server has to exit on its own
TAIL_BYTES = 4096  # of the server's stderr, kept for the message when it dies
EXIT_SECONDS = 1.0  # after the server closed its output, how long it has to exit (its status)
SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class StartFailed(Exception):
    """The D31 server did not start (or ended before it said anything)."""


class Server:
    """The D31 server's process: its pid, its pipes' ends on our side, its exit status."""

    def __init__(self, pid: int, stdin: int, stdout: int, stderr: int) -> None:
        self.pid = pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None  # as subprocess has it: -N for signal N

    def wait(self) -> None:
        status = os.waitpid(self.pid, 0)[1]
        self.returncode = os.waitstatus_to_exitcode(status)


class Front:
    """One adapter session: start the server, relay until the client goes, stop the server."""

    def __init__(self, command: list[str], limit: int = MAX_MESSAGE) -> None:
        self.command = command
        self.limit = limit  # the largest message read, in bytes
        self.lineage = Lineage()
        self.watch: Watch | None = None
        self.stderr_end = b""  # the last TAIL_BYTES of the server's stderr
        self.stderr_lock = threading.Lock()
        self.to_stderr = Sink(2)
        self.copying_stderr: threading.Thread | None = None
        self.server: Server | None = None
        self.group: Group | None = None
        self.relay: Any = None
        # The relay is called from both reader threads: one at a time, and what it writes
        # goes out after the lock is released (a blocked write must not stop the other side).
        self.lock = threading.Lock()
        self.outbox: list[tuple[Sink, bytes]] = []
        self.client_gone = False
        self.failed: str | None = None  # why the server did not start
        self.done = threading.Event()
        self.exited = threading.Event()
        self.signalled: int | None = None
        self.reading_server: threading.Thread | None = None
        self.stopping = False  # the session ended with the server still there

    # ── the server's stderr: passed on to ours, its end kept for messages ──

    def _copy_stderr(self, fd: int) -> None:
        """Pass on what the server writes to stderr as it comes (nothing once a signal ended
        the session: what it says dying of it is not news); keep the last of it."""
        while True:
            try:
                data = os.read(fd, MAX_READ)
            except OSError:
                return
            if not data:
                return
            with self.stderr_lock:
                self.stderr_end = (self.stderr_end + data)[-TAIL_BYTES:]
                if self.signalled is None:
                    self.to_stderr.write(data)

    def stderr_tail(self) -> str:
        """The last line the server wrote to stderr ("" if none)."""
        with self.stderr_lock:
            lines = self.stderr_end.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else ""

    # ── the session ──

    def run(self) -> None:
        for signum in SIGNALS:
            signal.signal(signum, self._on_signal)
        server = self._start()
        self.server = server
        self.group = Group.of(server.pid)
        self.watch = self.lineage.watch(server.pid)  # before any thread: it forks
        try:
            self._serve(server)
        finally:
            self._stop_server()
            if self.reading_server is not None:  # its last messages out before we exit
                self.reading_server.join(EXIT_SECONDS + STOP_SECONDS)
        if self.failed is not None:
            raise StartFailed(self.failed)

    def _start(self) -> Server:
        """The server, in a session of its own, its stdio on pipes of ours (`lineage`)."""
        pipes = [os.pipe() for _ in range(3)]  # its stdin, stdout, stderr
        theirs = (pipes[0][0], pipes[1][1], pipes[2][1])
        try:
            pid = self.lineage.spawn(self.command, *theirs)
        except (OSError, ValueError) as exc:
            for fd in (fd for pair in pipes for fd in pair):
                os.close(fd)
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise StartFailed(f"did not start: {reason}") from None
        for fd in theirs:
            os.close(fd)
        return Server(pid, pipes[0][1], pipes[1][0], pipes[2][0])

    def _serve(self, server: Server) -> None:
        # Loaded while the server starts: the SDK's models take a while to import.
        from jp_migrate.adapt.relay import Relay

        self.copying_stderr = self._thread("adapt-stderr", self._copy_stderr, server.stderr)
        to_server = Sink(server.stdin)  # ours alone to close: the server's EOF
        stdin, stdout = claim_stdio()
        to_client = Sink(stdout)
        self.relay = Relay(
            self.command[0],
            lambda line: self.outbox.append((to_client, line)),
            lambda line: self.outbox.append((to_server, line)),
            self.stderr_tail,
            self.limit,
        )
        self._thread("adapt-wait", self._wait_server)
        self.reading_server = self._thread("adapt-server", self._from_server, server.stdout)
        self._thread("adapt-client", self._from_client, stdin, to_server)
        own = (server.pid,) if self.watch is None else (server.pid, self.watch.pid)
        while not self.done.wait(1.0):  # a timeout: signals are handled between waits
            self.lineage.reap(own)  # what the server left and ended on its own

    def _thread(self, name: str, target: Callable[..., None], *args: Any) -> threading.Thread:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        thread.start()
        return thread

    def _handle(self, step: Callable[[Any], None], arg: Any) -> None:
        """Run one step of the relay; then write what it wrote, outside the lock."""
        with self.lock:
            try:
                step(arg)
            except Exception as exc:  # noqa: BLE001 - one line, not a traceback: the session goes on
                say(f"adapt --mcp: internal error: {type(exc).__name__}: {exc}")
            out, self.outbox = self.outbox, []
        for sink, data in out:
            sink.write(data)

    # ── the two sides ──

    def _from_client(self, fd: int, to_server: Sink) -> None:
        read_lines(fd, partial(self._handle, self.relay.from_client), self.limit)
        self.client_gone = True
        to_server.close()  # the server's end of stdin: it may exit on its own
        self.exited.wait(CLOSE_SECONDS)
        self.done.set()

    def _from_server(self, fd: int) -> None:
        read_lines(fd, partial(self._handle, self.relay.from_server), self.limit)
        self.exited.wait(EXIT_SECONDS)
        assert self.server is not None
        code = self.server.returncode
        if self.copying_stderr is not None:  # all it said, up to its end
            self.copying_stderr.join(EXIT_SECONDS)
        if self.stopping:
            return  # the session is over and we ended the server: nobody to tell
        said = self.stderr_tail()
        how = _how_it_ended(code) + (f" (stderr: {said})" if said else "")
        if not self.relay.heard and (not self.client_gone or code != 0):
            self.failed = f"did not start: {how}"
            self.done.set()
        else:
            self._handle(self.relay.server_gone, how)

    def _wait_server(self) -> None:
        assert self.server is not None
        self.server.wait()
        self.exited.set()

    # ── the end ──

    def _on_signal(self, signum: int, _frame: Any) -> None:
        """SIGTERM, SIGINT or SIGHUP ends the session at once: the signal goes on to the
        server's process group (killed after STOP_SECONDS), then the adapter exits without
        waiting for its client to close stdin. The server's stderr is passed on up to the
        signal, not what it says dying of it (a Python server's KeyboardInterrupt traceback)."""
        if self.signalled is not None:
            return
        with self.stderr_lock:
            self.signalled = signum  # from here on, none of the server's stderr is passed on
        if self.group is not None:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.group.id, signum)
            self.exited.wait(STOP_SECONDS)
            self.group.kill()
            self._end_rest()
        sys.stderr.flush()
        os._exit(128 + signum)

    def _stop_server(self) -> None:
        """The server asked to stop (SIGTERM) if it is still there, then its group killed,
        and what detached itself from it: nothing it started outlives the session."""
        assert self.group is not None
        self.stopping = not self.exited.is_set()
        if self.stopping:
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.group.id, signal.SIGTERM)
            self.exited.wait(STOP_SECONDS)
        self.group.kill()
        self._end_rest()

    def _end_rest(self) -> None:
        """The watcher told we are done, then every process of the server's that came to us
        ended (the server itself too, once killed, is left to its waiting thread)."""
        assert self.server is not None
        if self.watch is not None:
            self.watch.done()
            self.watch = None
        self.exited.wait(EXIT_SECONDS)  # the killed server reaped by `_wait_server`
        self.lineage.end_descendants((self.server.pid,))


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


def serve(command: list[str], limit: int = MAX_MESSAGE) -> int:
    """Serve MCP on stdin/stdout until the client goes; 2 when the server cannot start."""
    try:
        Front(command, limit).run()
    except StartFailed as exc:
        say(f"MCP server {command[0]!r}: {exc}")
        return 2
    except KeyboardInterrupt:  # before the handlers are in place
        return 130
    return 0
