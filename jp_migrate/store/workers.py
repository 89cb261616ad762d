"""Tasks through `commit_many` (or conversations through `verify_conversation`), on worker
processes for `--jobs N`, and a clean stop of those workers on Ctrl-C or SIGTERM.

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

Workers take the tasks a small chunk at a time from one list they all inherit
(a shared counter says which chunk is next), so they run out of work
together, and each runs them all through one `commit_many`: one pipeline of
commit batches, drained once at the end (a task per slice drained it at the
end of every slice, waiting for its last sync with nothing else to do). They
send their results through a queue, a few dozen at a time.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.queues
import queue
import signal
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import Synchronized
from multiprocessing.synchronize import Event

from jp_migrate.errors import JpMigrateError
from jp_migrate.interrupts import STOP_SIGNALS
from jp_migrate.store.pipeline import Task, commit_many
from jp_migrate.store.settings import Result, Settings
from jp_migrate.store.verify import Backups, verify_conversation

STOP_GRACE = 30.0  # seconds the workers get to wind down after a stop
BROKEN_GRACE = 5.0  # ... after one of them died

CHUNK = 8  # conversations a worker takes at a time (fewer in a small run: balance)
SEND = 32  # results a worker sends at a time (the progress bar moves by as many)
POLL = 0.1  # seconds between looks for a worker that died, while none sends anything


@dataclass(frozen=True)
class _Feed:
    """What the parent shares with its forked workers (inherited through the fork: the
    arguments of a forked Process are never pickled)."""

    chunks: list[list[Task]]  # the run's tasks, a chunk taken at a time
    stop: Event  # set by the parent to stop the run
    taken: Synchronized[int]  # how many chunks the workers have taken
    results: multiprocessing.queues.Queue[list[Result] | None]  # worker → parent; None: done


def results(tasks: Iterable[Task], settings: Settings, verify: bool) -> Iterator[Result]:
    """The tasks done (`verify`: their conversations checked, nothing done)."""
    if verify:
        backups: Backups = {}  # this run's, found as roots are met
        return (Result(verify_conversation(t.conversation, backups)) for t in tasks)
    return commit_many(tasks, settings)


class _WorkerDied(Exception):
    """A worker ended without saying it was done (killed from outside)."""


def run_jobs(
    tasks: list[Task], settings: Settings, verify: bool, jobs: int
) -> Iterator[list[Result]]:
    """The results, a task at a time with one job, a few dozen at a time with more."""
    if jobs <= 1 or len(tasks) < 2:
        for result in results(tasks, settings, verify):
            yield [result]
        return
    chunks = _chunks(tasks, max(1, min(CHUNK, len(tasks) // (jobs * 8))))
    context = multiprocessing.get_context("fork")
    feed = _Feed(chunks, context.Event(), context.Value("q", 0), context.Queue())
    processes = [
        context.Process(target=_worker, args=(feed, settings, verify), daemon=True)
        for _ in range(min(jobs, len(chunks)))
    ]
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:  # the workers are forked here, inheriting the mask (see _worker)
        for process in processes:
            process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)  # a pending signal lands now
    try:
        yield from _received(feed, processes)
    except _WorkerDied:
        feed.stop.set()
        # The survivors stop at their next conversation. One may instead wait forever: a
        # worker killed while taking work or sending results held a lock the others need.
        # Workers ignore SIGTERM, so it is killed after a short grace.
        _join(processes, BROKEN_GRACE)
        raise JpMigrateError(
            "a --jobs worker process died (killed from outside?): the run stopped; rerun "
            "it to finish, or `jp-migrate rollback` what it committed"
        ) from None
    except BaseException:  # Ctrl-C, SIGTERM (the CLI raises KeyboardInterrupt), a closed generator
        feed.stop.set()
        _join(processes, STOP_GRACE)  # each finishes its conversation, abandons the rest
        raise
    _join(processes, STOP_GRACE)  # done: each exits once its results are sent


def _join(processes: list[BaseProcess], grace: float) -> None:
    """Wait up to `grace` seconds for the workers to end; kill those still there (still
    busy, or a second Ctrl-C came)."""
    deadline = time.monotonic() + grace
    try:
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
    finally:
        for process in processes:
            if process.exitcode is None:
                process.kill()
                process.join()


def _received(feed: _Feed, processes: list[BaseProcess]) -> Iterator[list[Result]]:
    """What the workers send, until each has said it is done (None). A worker that died
    says nothing more: _WorkerDied."""
    running = len(processes)
    while running:
        try:
            sent = feed.results.get(timeout=POLL)
        except queue.Empty:
            if any(process.exitcode not in (None, 0) for process in processes):
                raise _WorkerDied from None
            continue
        if sent is None:
            running -= 1
        else:
            yield sent


def _worker(feed: _Feed, settings: Settings, verify: bool) -> None:
    """A worker ignores the stop signals (the parent stops it), dies with its parent, and
    only then unblocks the signals it was forked with blocked: none reaches the CLI's
    handlers here (in a worker, a KeyboardInterrupt is a traceback on stderr)."""
    for number in STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if _work(feed, settings, verify):
        feed.results.close()
        feed.results.join_thread()  # everything sent is in the pipe before the worker exits
    else:
        # What this worker sent and the parent no longer reads (it stopped the run) must
        # not hold the worker at its exit.
        feed.results.cancel_join_thread()


class _Stopped(Exception):
    """The parent stopped the run."""


def _taken(feed: _Feed) -> Iterator[Task]:
    """The tasks of every chunk this worker takes, until none is left; raises _Stopped
    once the parent stops the run."""
    while True:
        with feed.taken.get_lock():
            index = feed.taken.value
            feed.taken.value = index + 1
        if index >= len(feed.chunks):
            return
        for task in feed.chunks[index]:
            if feed.stop.is_set():
                raise _Stopped
            yield task


def _work(feed: _Feed, settings: Settings, verify: bool) -> bool:
    """A worker's share of a `--jobs` run: chunks taken from the common list as it goes,
    all through one `commit_many` (one pipeline of batches, drained once); its results
    sent to the parent a few dozen at a time, then None. On a stop, what is not committed
    yet is abandoned (`commit_many` removes its temporaries): False."""
    sent: list[Result] = []
    try:
        for result in results(_taken(feed), settings, verify):
            sent.append(result)
            if len(sent) >= SEND:
                feed.results.put(sent)
                sent = []
    except _Stopped:
        return False
    if sent:
        feed.results.put(sent)
    feed.results.put(None)
    return True


def _chunks(tasks: list[Task], size: int) -> list[list[Task]]:
    """Work for `--jobs` workers, about `size` tasks a chunk.

    The copies of one conversation (the same id in a workspace's `.jp/` and in
    its user-local storage, JP's RFD 031) go to the same worker: they share one
    lock, which a worker takes once for both, where two workers would each find
    it held by the other.
    """
    by_id: dict[str, list[Task]] = {}
    for task in tasks:
        by_id.setdefault(task.conversation.id, []).append(task)
    chunks: list[list[Task]] = [[]]
    for copies in by_id.values():
        if len(chunks[-1]) >= size:
            chunks.append([])
        chunks[-1].extend(copies)
    return [chunk for chunk in chunks if chunk]
