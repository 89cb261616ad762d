"""The process groups the bridge starts: killed when a run ends, never someone else's.

A tool or an MCP server runs in a new session, so its pid is its group's id and
what it starts joins that group. Once the leader is reaped and its group is
empty, the kernel may give that pid to a new process; so a group is killed only
while its id names no living process (the leader gone, members left) or the
leader we started (the same start time). Without /proc (not Linux) the start
time is unknown and the group is killed as it is.
"""

from __future__ import annotations

import os
import signal
from contextlib import suppress
from dataclasses import dataclass

from jp_migrate.lineage import leads_group, start_time


@dataclass(frozen=True)
class Group:
    id: int  # the leader's pid
    started: str | None  # the leader's start time

    @classmethod
    def of(cls, pid: int) -> Group:
        """The group led by `pid`, read while the process is still there (a zombie counts)."""
        return cls(pid, start_time(pid))

    def kill(self) -> None:
        """SIGKILL what is left in the group, unless its id now names another process."""
        if self.started is not None:
            now = start_time(self.id)
            if now is not None and now != self.started:
                return
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.id, signal.SIGKILL)


def spawned_by(thread: int, stderr: int) -> list[Group]:
    """The groups led by children of a thread of this process (by its native id) whose
    stderr is the open file `stderr`: the SDK spawns an MCP server from the event loop's
    thread, with the stderr file the session gives it, which tells that server from the
    others the thread started. Empty where /proc lists no children (not Linux, or a
    kernel without CONFIG_PROC_CHILDREN): what such a server leaves behind is not found."""
    try:
        with open(f"/proc/self/task/{thread}/children") as listing:
            pids = [int(pid) for pid in listing.read().split()]
        wanted = os.fstat(stderr)
    except OSError:
        return []
    return [Group.of(pid) for pid in pids if leads_group(pid) and _writes_to(pid, wanted)]


def _writes_to(pid: int, wanted: os.stat_result) -> bool:
    try:
        return os.path.samestat(os.stat(f"/proc/{pid}/fd/2"), wanted)
    except OSError:  # gone already
        return False
