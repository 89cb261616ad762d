"""Conversations through `migrate_many` (or `verify_conversation`), on worker processes for
`--jobs N`, and a clean stop of those workers on Ctrl-C or SIGTERM.

Workers are forked with the stop signals (SIGINT, SIGTERM, SIGHUP) blocked and
ignore them from their first instruction: a terminal's Ctrl-C or `timeout`'s
SIGTERM to the whole process group reaches the parent alone (the CLI turns it
into KeyboardInterrupt), which asks the workers to stop (an Event) instead of
killing them. Each finishes the conversation it is converting, abandons its
uncommitted writes (no temporary is left) and returns; what it committed is in
the run's journal, so `rollback` undoes it. A second Ctrl-C, or a worker still
busy after `STOP_GRACE` seconds, is killed. A worker that dies (killed from
outside) ends the run with one error line; a worker whose parent dies is
killed with it (Linux).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, as_completed, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.synchronize import Event

from jp_migrate.errors import JpMigrateError
from jp_migrate.store.discover import Conversation
from jp_migrate.store.migrate import (
    COMMIT_THREADS,
    WORKER_COMMIT_THREADS,
    Result,
    Settings,
    migrate_many,
)
from jp_migrate.store.verify import verify_conversation

STOP_GRACE = 30.0  # seconds the workers get to wind down after a stop
BROKEN_GRACE = 5.0  # ... after one of them died
STOP_SIGNALS = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)

_STOP: Event | None = None  # in a worker: set by the parent to stop the run


def results(
    conversations: Iterable[Conversation],
    settings: Settings,
    verify: bool,
    writers: int = COMMIT_THREADS,
) -> Iterator[Result]:
    if verify:
        return (Result(verify_conversation(c)) for c in conversations)
    return migrate_many(conversations, settings, writers=writers)


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
    executor = ProcessPoolExecutor(
        min(jobs, len(slices)), mp_context=context, initializer=_worker_start, initargs=(stop,)
    )
    futures: list[Future[list[Result]]] = []
    try:
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:  # the workers are forked here, inheriting the mask (see _worker_start)
            futures = [executor.submit(_slice, part) for part in slices]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a pending signal lands now
        for future in as_completed(futures):
            yield future.result()
    except BrokenProcessPool:
        stop.set()
        # The survivors stop at their next conversation. One may instead wait forever: a
        # worker killed while idle held the task queue's lock. The pool would then wait for
        # it after a SIGTERM, which workers ignore; so it is killed after a short grace.
        deadline = time.monotonic() + BROKEN_GRACE
        for process in multiprocessing.active_children():
            process.join(max(0.0, deadline - time.monotonic()))
        _kill_workers()
        raise JpMigrateError(
            "a --jobs worker process died (killed from outside?): the run stopped; rerun "
            "it to finish, or `jp-migrate rollback` what it committed"
        ) from None
    except BaseException:  # Ctrl-C, SIGTERM (the CLI raises KeyboardInterrupt), a closed generator
        stop.set()
        executor.shutdown(wait=False, cancel_futures=True)
        # A future cancelled before it ran never wakes `wait`: wait for the started ones only
        # (they return at once, stopped); `cancel` fails for those.
        started = [future for future in futures if not future.cancel()]
        try:
            wait(started, timeout=STOP_GRACE)
        finally:
            _kill_workers()  # still busy after the grace, or a second Ctrl-C came
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def _kill_workers() -> None:
    for process in multiprocessing.active_children():
        process.kill()


def _worker_start(stop: Event) -> None:
    """A worker ignores the stop signals (the parent stops it), dies with its parent, and
    only then unblocks the signals it was forked with blocked: none reaches the CLI's
    handlers here (in a worker, a KeyboardInterrupt is a traceback on stderr)."""
    global _STOP
    _STOP = stop
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


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
        return list(results(_until_stopped(conversations), settings, verify, WORKER_COMMIT_THREADS))
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
