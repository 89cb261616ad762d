"""A process we start, and everything it starts: none outlives us (the adapters' tool or server).

The tool (or the MCP server) runs in a session of its own, so the adapter can end
its process group without ending itself. On Linux three more things hold,
however the adapter ends:

- the tool is started with the parent-death signal set (`PR_SET_PDEATHSIG`:
  SIGKILL), so the kernel kills it when the adapter dies, SIGKILL included;
- a watcher (`Watch`), a process of its own outside the adapter's process group,
  kills the tool's group when the adapter dies without saying it is done;
- the adapter is a subreaper (`PR_SET_CHILD_SUBREAPER`): a process the tool
  started and left (one that detached itself into a session of its own) comes to
  the adapter rather than to init when its parent dies, so `end_descendants`
  finds it among the adapter's children and ends it when the call is over.

Without `prctl` (not Linux) only the process group is ended; a detached process
is not found. Plain `os` calls: the local adapter runs in front of every call of
a tool, and `subprocess` (with what it imports) is a third of its start-up.
"""

from __future__ import annotations

import os
import signal
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on this path
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
MAX_GENERATIONS = 100  # rounds of `end_descendants`: each ends one generation of orphans
# Reset to their defaults in the tool, as JP's own runtime does for what it starts
# (Python ignores SIGPIPE; an ignored signal stays ignored across exec).
DEFAULT_SIGNALS = ("SIGPIPE", "SIGXFSZ")
WATCHER_DEFAULTS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")


def _prctl() -> Callable[..., int] | None:
    """libc's `prctl`, or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return prctl


class Lineage:
    """One adapter's tool and what it starts: how they are started, watched and ended."""

    def __init__(self) -> None:
        self.prctl = _prctl()
        # Orphans of the tool come to us (not to init), to be found at the end.
        self.subreaper = self.prctl is not None and self.prctl(PR_SET_CHILD_SUBREAPER, 1) == 0

    def spawn(self, argv: Sequence[str], stdin: int | None, stdout: int, stderr: int) -> int:
        """`argv` started in a session of its own with these fds (None: ours), to die with us;
        its pid. OSError (FileNotFoundError, PermissionError, …) when it cannot be executed."""
        if not argv or any("\0" in arg for arg in argv):
            raise ValueError("the command is empty or holds a NUL character")
        program = _executable(argv[0])
        failed_r, failed_w = os.pipe()  # close on exec: EOF tells the exec went through
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child, until it execs
            self._exec(program, argv, (stdin, stdout, stderr), parent, failed_w)
        os.close(failed_w)
        try:
            report = _read_all(failed_r)
        finally:
            os.close(failed_r)
        if report:
            os.waitpid(pid, 0)
            number, _, name = report.decode("utf-8", "replace").partition(" ")
            raise OSError(int(number), os.strerror(int(number)), name)
        return pid

    def _exec(
        self,
        program: str,
        argv: Sequence[str],
        fds: tuple[int | None, int, int],
        parent: int,
        failed: int,
    ) -> None:
        try:
            os.setsid()
            for target, source in enumerate(fds):
                if source is not None:
                    os.dup2(source, target)
            for name in DEFAULT_SIGNALS:
                if hasattr(signal, name):
                    signal.signal(getattr(signal, name), signal.SIG_DFL)
            if self.prctl is not None:
                self.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                if os.getppid() != parent:  # the adapter died before the signal was set
                    os._exit(128 + signal.SIGKILL)
            os.execv(program, list(argv))
        except OSError as exc:
            os.write(failed, f"{exc.errno or 0} {argv[0]}".encode())
        finally:
            os._exit(127)

    def watch(self, pid: int) -> Watch | None:
        """A watcher ending `pid`'s process group if we die before `Watch.done` (Linux)."""
        return Watch(pid) if self.prctl is not None else None

    def reap(self, spare: Collection[int] = ()) -> None:
        """Reap the children of ours but `spare` that have exited: orphans that came to us and
        ended on their own would otherwise stay zombies (a pid each) until the end."""
        if not self.subreaper:
            return
        for pid in children():
            if pid not in spare:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass

    def end_descendants(self, spare: Collection[int] = ()) -> int:
        """SIGKILL every child of ours but `spare` (and the group each leads), reap them, and
        again for the orphans that come to us as they die; how many were ended (a watcher
        told it is done among them)."""
        if not self.subreaper:
            return 0
        ended = 0
        for _ in range(MAX_GENERATIONS):
            pids = [pid for pid in children() if pid not in spare]
            if not pids:
                break
            for pid in pids:  # each is ours and unreaped: its pid names no one else
                if leads_group(pid):
                    _signal(os.killpg, pid)
                _signal(os.kill, pid)
            for pid in pids:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
            ended += len(pids)
        return ended


class Watch:
    """A process of its own (a session of its own, so a kill of the adapter's group spares
    it) holding the read end of a pipe only the adapter writes: at the pipe's end without
    a word (the adapter died) it kills the tool's group, whose id is safe to kill while
    the tool's start time still matches."""

    def __init__(self, pid: int) -> None:
        started = start_time(pid)
        read, self.write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the watcher
            try:
                for name in WATCHER_DEFAULTS:  # not the adapter's handlers (which forward)
                    signal.signal(getattr(signal, name), signal.SIG_DFL)
                os.setsid()
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                for fd in _open_fds():
                    if fd > 2 and fd != read:
                        os.close(fd)
                said = _read_all(read)
                if not said and start_time(pid) in (None, started):
                    _signal(os.killpg, pid)
            finally:
                os._exit(0)
        os.close(read)

    def done(self) -> None:
        """The adapter ends the tool itself: the watcher exits without a kill (on its own,
        not waited for: it is reaped with the adapter's other children, or by init)."""
        try:
            os.write(self.write, b"done")
        except OSError:  # the watcher is gone already (killed): nothing to tell it
            pass
        finally:
            os.close(self.write)


def _executable(name: str) -> str:
    """The file `name` runs, found on PATH as `execvp` finds it (the search done here, in
    the parent: the standard library's is slow in a freshly forked child)."""
    if "/" in name:
        return name
    denied: str | None = None
    for directory in os.get_exec_path():
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            if os.access(path, os.X_OK):
                return path
            denied = denied or path
    if denied is not None:
        return denied  # its exec fails with the error the search saw (EACCES)
    raise FileNotFoundError(2, os.strerror(2), name)


def children() -> list[int]:
    """This process's children, from /proc (empty without it)."""
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return []
    pids: list[int] = []
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/children") as listing:
                pids.extend(int(pid) for pid in listing.read().split())
        except FileNotFoundError:  # a kernel without CONFIG_PROC_CHILDREN: every process's parent
            return _children_by_parent()
        except OSError:  # the thread ended meanwhile
            continue
    return pids


def _children_by_parent() -> list[int]:
    me = os.getpid()
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == me:
                pids.append(int(name))
    return pids


def start_time(pid: int) -> str | None:
    """When the process started (field 22 of /proc/PID/stat, clock ticks); None if unknown."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def leads_group(pid: int) -> bool:
    try:
        return os.getpgid(pid) == pid
    except OSError:
        return False


def _signal(kill: Callable[[int, int], None], pid: int) -> None:
    try:
        kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
    return b"".join(chunks)


def _open_fds() -> list[int]:
    """This process's open file descriptors (from /proc: the watcher runs on Linux only)."""
    fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    return [fd for fd in fds if _is_open(fd)]  # the listing's own fd is closed by now


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True
