"""The bridge's one event loop, started at a command's edge, and how a signal ends it.

Ctrl-C, SIGTERM and SIGHUP set STOPPED, which worker threads look at (a local
tool's wait, a terminal prompt: a signal reaches the event loop, never them), and
cancel the work (an MCP session kills its server on the way out); the signal is
then raised as jp_migrate.interrupts raises it, so the exit code says which it was.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

from jp_migrate.interrupts import STOP_SIGNALS, Terminated

T = TypeVar("T")

STOPPED = threading.Event()  # set once: the process is on its way out
POLL_SECONDS = 0.25  # how often a worker thread's wait looks at STOPPED


class Stopped(Exception):
    """A worker thread gave its work up: the run is stopping. (Not KeyboardInterrupt:
    asyncio lets that out of the event loop from any task, past the clean-up to run.)"""


def run(work: Callable[[], Awaitable[T]]) -> T:
    """`await work()` in the command's one event loop (`anyio.run`)."""
    import anyio

    # The stop signals not set to be ignored; none off the main thread (no handler there).
    main = threading.current_thread() is threading.main_thread()
    numbers = STOP_SIGNALS if main else frozenset()
    previous = {n: signal.getsignal(n) for n in numbers if signal.getsignal(n) != signal.SIG_IGN}
    caught: list[signal.Signals] = []
    try:
        done = anyio.run(_until_signal, work, list(previous), caught)
    except BaseException as exc:  # noqa: BLE001 - a signal wins over what its cancel raised
        if not caught:
            inner = innermost(exc)
            raise inner from inner.__cause__
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if caught:  # as the signal would have raised it in the work (jp_migrate.interrupts)
        raise KeyboardInterrupt if caught[0] == signal.SIGINT else Terminated(caught[0])
    return done[0]


async def _until_signal(
    work: Callable[[], Awaitable[T]], watched: list[signal.Signals], caught: list[signal.Signals]
) -> list[T]:
    """`[await work()]`, or `[]` once a signal cancelled it; signals are listened to until
    the work has unwound (a second Ctrl-C does not cut its clean-up short)."""
    import anyio

    done: list[T] = []
    scope = anyio.CancelScope()
    with anyio.open_signal_receiver(*watched) as received:

        async def watch() -> None:
            async for number in received:
                if not caught:
                    caught.append(number)
                    STOPPED.set()  # before the cancel: threads end their tools and prompts
                    scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(watch)
            with scope:
                done.append(await work())
            group.cancel_scope.cancel()
    return done


def innermost(exc: BaseException) -> BaseException:
    """The exception inside the groups anyio's task groups wrap it in (the first, of several)."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc
