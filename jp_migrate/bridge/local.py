"""Spawn a local tool the way JP does: in the workspace root, stdout and stderr captured.

The child leads its own process group, so a timeout kills the tool and
everything it started; nothing outlives the run.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from jp_migrate.bridge.edge import POLL_SECONDS, STOPPED, Stopped
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.groups import Group
from jp_migrate.convert.host import ToolRun


def run_process(
    name: str,
    argv: Sequence[str],
    cwd: Path,
    *,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
) -> ToolRun:
    """Run `argv` to completion; spawn failure, timeout and non-UTF-8 output are BridgeErrors."""
    if STOPPED.is_set():  # Ctrl-C: a worker thread must not start another tool
        raise Stopped
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=dict(env) if env is not None else None,
        )
    except OSError as exc:
        raise BridgeError(
            f"cannot run {argv[0]!r}: {exc.strerror or exc}", source=f"tool {name!r}"
        ) from None
    group = Group.of(proc.pid)
    try:
        stdout, stderr = _communicate(proc, group, timeout)
    except subprocess.TimeoutExpired:
        exited = proc.poll()  # before the kill: did the tool itself finish?
        group.kill()
        _reap(proc)
        why = (
            ""
            if exited is None
            else f": it exited (code {exited}), but a process it started kept its output open"
        )
        raise BridgeError(
            f"timed out after {timeout:g}s{why}; killed its process group", source=f"tool {name!r}"
        ) from None
    except BaseException:
        group.kill()
        proc.wait()
        raise
    finally:
        # A tool's background children die with it, as they would not leak from JP's run either.
        group.kill()
    try:
        out = stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BridgeError(
            f"stdout is not valid UTF-8 (byte {exc.start}: {stdout[exc.start : exc.start + 1]!r})",
            source=f"tool {name!r}",
        ) from None
    return ToolRun(
        name=name, stdout=out, stderr=stderr.decode("utf-8", "replace"), exit_code=proc.returncode
    )


REAP_SECONDS = 1.0


def _communicate(
    proc: subprocess.Popen[bytes], group: Group, timeout: float | None
) -> tuple[bytes, bytes]:
    """`proc.communicate(timeout)`, also ended by a signal the event loop got (`STOPPED`):
    the group is killed and the pipes let go, even if a child that left the group holds
    them, and Stopped is raised."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        if STOPPED.is_set():
            group.kill()
            _reap(proc)
            raise Stopped
        wait = POLL_SECONDS
        if deadline is not None:
            wait = min(wait, max(0.0, deadline - time.monotonic()))
        try:
            return proc.communicate(timeout=wait)
        except subprocess.TimeoutExpired:
            if deadline is not None and time.monotonic() >= deadline:
                raise


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Wait for the killed tool, but not for a child that left its process group and keeps
    the pipes open (`setsid cmd &`): after a moment the pipes are closed on our side."""
    try:
        proc.communicate(timeout=REAP_SECONDS)
    except subprocess.TimeoutExpired:
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        proc.wait()
