"""Run a legacy tool as its host would have: stdin, environment, working directory its own.

The tool leads a process group of its own (a new session), so what it starts
can be found and ended: the signals that end a run (Ctrl-C, a host's SIGTERM,
a closed terminal) are forwarded to the whole group, and whatever is left of
the group once the tool exits is killed, with what detached itself from it
(`lineage`), so the adapter leaves no orphans. The group is killed while its
leader is still unreaped (`waitid` with `WNOWAIT`), so its id cannot name anyone
else's processes yet. Its output goes to the caller's callbacks as it comes.

Plain `os` calls rather than `subprocess`: this runs in front of every call of
the tool, and `subprocess` (with what it imports) is a third of the start-up.
"""

from __future__ import annotations

import os
import select
import signal
import time

from jp_migrate.lineage import Lineage

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on this path
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import FrameType

    Feed = Callable[[bytes], None]

# What a host or a terminal sends to end a run; each is passed on to the tool's group.
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
POLL_SECONDS = 0.2  # how often a wait looks at the tool, its deadline and the signals received
# After a forwarded signal, how long the tool has to end before its group is killed.
GRACE_SECONDS = 5.0
# A tool whose output has closed is exiting (or has closed it early, as coreutils do):
# it is looked at after this long, then twice as long each time, up to POLL_SECONDS.
EXIT_POLL_SECONDS = 0.0005
# How long a killed group's output is still read (a child that left it may hold it).
DRAIN_SECONDS = 1.0


class Finished:
    """A run that ended: its status (128+N when signal N ended it, as a shell reports it),
    the signal's name, and whether the adapter's timeout ended it."""

    __slots__ = ("exit_code", "signal", "timed_out")

    def __init__(self, exit_code: int, sig: str | None, timed_out: bool) -> None:
        self.exit_code = exit_code
        self.signal = sig
        self.timed_out = timed_out


class CannotStart(Exception):
    """The program could not be executed; `exit_code` is the shell's for the same case."""

    def __init__(self, reason: str, exit_code: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.exit_code = exit_code


def _kill_group(pid: int, signum: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def run(
    argv: Sequence[str], *, on_stdout: Feed, on_stderr: Feed, timeout: float | None = None
) -> Finished:
    """Run `argv` to completion, its output to `on_stdout` and `on_stderr` as it comes;
    CannotStart when it cannot be executed at all."""
    lineage = Lineage()
    received: list[int] = []
    child: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        received.append(signum)
        if child:
            _kill_group(child[0], signum)

    previous = {}
    for name in FORWARDED:
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, forward)
    try:
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            pid = _spawn(lineage, argv, out_w, err_w)
        except BaseException:
            for fd in (out_r, err_r):
                os.close(fd)
            raise
        finally:
            os.close(out_w)
            os.close(err_w)
        child.append(pid)
        watch = lineage.watch(pid)
        spare = (pid,) if watch is None else (pid, watch.pid)

        def end_rest() -> None:
            """What the tool left running: its group, and what detached itself from it."""
            _kill_group(pid)
            lineage.end_descendants(spare)

        def reap() -> None:  # what came to us from the tool and ended on its own
            lineage.reap(spare)

        for signum in received:  # a signal that came before the tool's group was known
            _kill_group(pid, signum)
        try:
            outputs = ((out_r, on_stdout), (err_r, on_stderr))
            timed_out = _collect(pid, outputs, received, timeout, end_rest, reap)
        finally:
            _kill_group(pid)  # what the tool left running in its group goes with it
            os.close(out_r)
            os.close(err_r)
            if watch is not None:
                watch.done()
            lineage.end_descendants((pid,))  # and what detached itself from the group
            status = os.waitpid(pid, 0)[1]  # the leader, unreaped until its group is gone
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return Finished(128 + number, _signal_name(number), timed_out)
    return Finished(os.WEXITSTATUS(status), None, timed_out)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _spawn(lineage: Lineage, argv: Sequence[str], out_w: int, err_w: int) -> int:
    """The tool, started in a session of its own with stdout/stderr on our pipes."""
    try:
        return lineage.spawn(argv, None, out_w, err_w)
    except FileNotFoundError as exc:
        raise CannotStart(f"{argv[0]!r}: {exc.strerror}", 127) from None
    except OSError as exc:  # not executable, a directory, …
        raise CannotStart(f"{argv[0]!r}: {exc.strerror or exc}", 126) from None
    except ValueError as exc:  # a NUL character in an argument
        raise CannotStart(f"{argv[0]!r}: {exc}", 126) from None


def _exited(pid: int) -> bool:
    """Whether the tool has exited (left unreaped)."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _collect(
    pid: int,
    outputs: tuple[tuple[int, Feed], ...],
    received: list[int],
    timeout: float | None,
    end_rest: Callable[[], None],
    reap: Callable[[], None],
) -> bool:
    """Both pipes read to their end (each chunk to its feed) and the tool exited (as a host
    waits for both); whether the timeout ended the run.

    What came to us from the tool and ended is reaped every POLL_SECONDS (`reap`).
    The group (and what detached from it: `end_rest`) is killed when the tool has
    exited but something it started still holds its output open, when `timeout`
    passes, or GRACE_SECONDS after a forwarded signal the tool did not end on (a
    host that sent SIGTERM kills next, and then nothing could end the group); what
    it wrote by then is read for DRAIN_SECONDS more.
    """
    feeds = dict(outputs)
    poller = select.poll()
    for fd in feeds:
        poller.register(fd, select.POLLIN)
    open_fds = set(feeds)
    deadline = None if timeout is None else time.monotonic() + timeout
    drain_until: float | None = None
    signalled: float | None = None
    timed_out = False
    exit_wait = EXIT_POLL_SECONDS
    reaped = time.monotonic()
    while True:
        wait = POLL_SECONDS
        if not open_fds:
            wait, exit_wait = exit_wait, min(exit_wait * 2, POLL_SECONDS)
        for fd, _event in poller.poll(wait * 1000):
            data = os.read(fd, 65536)
            if data:
                feeds[fd](data)
            else:
                poller.unregister(fd)
                open_fds.discard(fd)
        exited = _exited(pid)
        if exited and not open_fds:
            break
        now = time.monotonic()
        if now - reaped >= POLL_SECONDS:
            reap()
            reaped = now
        if drain_until is not None:
            if now >= drain_until or not open_fds:
                break
            continue
        if received and signalled is None:
            signalled = now
        timed_out = deadline is not None and now >= deadline
        late = signalled is not None and now - signalled >= GRACE_SECONDS
        if timed_out or late or (exited and open_fds):
            end_rest()
            drain_until = now + DRAIN_SECONDS
    return timed_out
