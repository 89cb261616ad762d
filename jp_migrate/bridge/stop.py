"""Ctrl-C while tools run on worker threads: nothing new starts, everything running ends.

The main thread gets the KeyboardInterrupt; the workers are blocked in a tool
process (which runs in its own session, so the terminal's SIGINT never reaches
it) or in an MCP call. `stop_all` sets STOPPED, which a worker waiting on a tool
looks at (bridge.local kills the tool's group), and runs the hooks that cancel
MCP calls, so the workers return at once and the interrupt ends the run, as it
does without workers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")

STOPPED = threading.Event()  # set once: the process is on its way out
_HOOKS: list[Callable[[], None]] = []


def on_stop(hook: Callable[[], None]) -> None:
    """Register what ends the running work of one kind (killing processes, cancelling calls)."""
    _HOOKS.append(hook)


def stop_all() -> None:
    STOPPED.set()
    for hook in _HOOKS:
        hook()


def results(futures: Sequence[Future[T]]) -> list[T]:
    """Each future's result, in order; on Ctrl-C, the others cancelled and the running work ended."""
    try:
        return [future.result() for future in futures]
    except KeyboardInterrupt:
        for future in futures:
            future.cancel()
        stop_all()
        raise
