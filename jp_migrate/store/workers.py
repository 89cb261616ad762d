"""Conversations through `migrate_many` (or `verify_conversation`), on worker processes for
`--jobs N`, and a clean stop of those workers on Ctrl-C or SIGTERM.

Workers are forked; each runs slices of conversations. On a stop the parent
asks them to stop (an Event) instead of killing them: each finishes the
conversation it is converting, abandons its uncommitted writes (no temporary
is left) and returns; what it committed is in the run's journal, so
`rollback` undoes it. A second Ctrl-C, or a worker that does not end within
`STOP_GRACE` seconds, kills them.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections.abc import Iterable, Iterator
from multiprocessing.synchronize import Event

from jp_migrate.store.discover import Conversation
from jp_migrate.store.migrate import Result, Settings, migrate_many
from jp_migrate.store.verify import verify_conversation

STOP_GRACE = 30.0  # seconds the workers get to wind down after a stop

_STOP: Event | None = None  # in a worker: set by the parent to stop the run


def results(
    conversations: Iterable[Conversation], settings: Settings, verify: bool
) -> Iterator[Result]:
    if verify:
        return (Result(verify_conversation(c)) for c in conversations)
    return migrate_many(conversations, settings)


def run_slices(
    conversations: list[Conversation], settings: Settings, verify: bool, jobs: int
) -> Iterator[list[Result]]:
    """The results, a conversation at a time with one job, a slice at a time with more."""
    if jobs <= 1 or len(conversations) < 2:
        for result in results(conversations, settings, verify):
            yield [result]
        return
    size = max(1, min(64, len(conversations) // (jobs * 4)))
    slices = [(part, settings, verify) for part in _slices(conversations, size)]
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    pool = context.Pool(min(jobs, len(slices)), initializer=_worker_start, initargs=(stop,))
    try:
        yield from pool.imap_unordered(_slice, slices)
    except BaseException:  # Ctrl-C, SIGTERM (the CLI raises KeyboardInterrupt), a closed generator
        stop.set()
        pool.close()
        _wind_down()
        raise
    finally:
        pool.terminate()  # idle workers die of SIGTERM, silently (see _worker_start)


def _wind_down() -> None:
    """Wait until every worker has ended (they end once every slice returned), or the grace."""
    deadline = time.monotonic() + STOP_GRACE
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.02)


def _worker_start(stop: Event) -> None:
    """Ctrl-C reaches the workers too: they ignore it, and stop when the parent says so.
    SIGTERM/SIGHUP kill a worker at once and silently (the CLI's handlers, which fork
    passes on, raise KeyboardInterrupt: in a worker, a traceback on stderr)."""
    global _STOP
    _STOP = stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, signal.SIG_DFL)


class _Stopped(Exception):
    """The parent stopped the run."""


def _until_stopped(conversations: Iterable[Conversation]) -> Iterator[Conversation]:
    for conversation in conversations:
        if _STOP is not None and _STOP.is_set():
            raise _Stopped
        yield conversation


def _slice(args: tuple[list[Conversation], Settings, bool]) -> list[Result]:
    """A worker's share of a `--jobs` run: one slice of conversations, all committed; on a
    stop, what is not committed yet is abandoned (`migrate_many` removes its temporaries)."""
    conversations, settings, verify = args
    try:
        return list(results(_until_stopped(conversations), settings, verify))
    except _Stopped:
        return []


def _slices(conversations: list[Conversation], size: int) -> list[list[Conversation]]:
    """Work for `--jobs` workers, about `size` conversations each.

    The copies of one conversation (the same id in a workspace's `.jp/` and in
    its user-local storage, JP's RFD 031) go to the same worker: they share one
    lock, which a worker takes once for both, where two workers would each find
    it held by the other.
    """
    by_id: dict[str, list[Conversation]] = {}
    for conversation in conversations:
        by_id.setdefault(conversation.id, []).append(conversation)
    slices: list[list[Conversation]] = [[]]
    for copies in by_id.values():
        if len(slices[-1]) >= size:
            slices.append([])
        slices[-1].extend(copies)
    return [part for part in slices if part]
