"""Per conversation: lock → look → plan → commit, for every kind of store run.

A task says what to do to one conversation: migrate it (`migrate.Migrate`),
restore what a run wrote or downgrade it (`undo.Restore`, `undo.Downgrade`).
Its `look` reads what it needs and returns the plan, or raises what `failed`
reports. The rest is the same for every task: the lock first (a dry run or a
check only probes it: it writes nothing, not even a lock file), one mapping of
errors to a report line, and the commit step (`store.commit`), which is where a
dry run and a real run part. Each worker of `--jobs` runs one `commit_many` on
its share, so everything here is picklable: `Settings` in, `Result`s out.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from jp_migrate.contract.report import StoreFile
from jp_migrate.errors import ContractError, JpMigrateError
from jp_migrate.files.write import temp_path, unlink
from jp_migrate.store import lock, manifest
from jp_migrate.store.commit import COMMIT_THREADS, Committer
from jp_migrate.store.discover import Conversation
from jp_migrate.store.layout import Refused
from jp_migrate.store.load import StoredFile
from jp_migrate.store.lock import (
    ConversationLocked,
    HeldLock,
    LockTable,
    conversation_lock,
    is_locked,
)
from jp_migrate.store.plan import Plan
from jp_migrate.store.settings import Result, Settings

LOCKED = "locked by a running jp"


class Task(Protocol):
    @property
    def conversation(self) -> Conversation: ...

    def look(self, settings: Settings, locked: bool) -> tuple[StoredFile, Plan]:
        """What to do, from what is there now (`locked`: this run holds the lock). Raises
        what `failed` reports for a conversation that cannot be done."""
        ...


def sweep(conversations: list[Conversation], *, temporaries: bool = False) -> None:
    """Before a run that writes: what a killed run of ours left besides its record (lock
    files nobody holds, originals a `--no-backup` run parked) is removed first; with
    `temporaries`, its temporaries too (each under its conversation's lock: a live run
    holds it while writing one), which a migration removes as it meets them instead."""
    for lock_root in sorted({r for c in conversations for r in c.root.lock_roots}):
        lock.sweep(lock_root)
    for root in sorted({c.root.path for c in conversations}):
        manifest.clear_discards(root)
    if not temporaries:
        return
    table = LockTable()
    try:
        for conversation in conversations:
            leftover = temp_path(conversation.events)
            if os.path.lexists(leftover) and not os.path.islink(leftover):  # a link: refused
                try:
                    with conversation_lock(table, conversation.root.lock_roots, conversation.id):
                        unlink(leftover)
                except (ConversationLocked, OSError, JpMigrateError):
                    pass  # a live run's, or one the next run removes
    finally:
        table.close()


def failed(conversation: Conversation, exc: Exception) -> StoreFile:
    """The one line a conversation gets for what stopped it; re-raises what is no input problem."""
    base: dict[str, Any] = {"path": conversation.shown, "conversation": conversation.name}
    if isinstance(exc, ConversationLocked):
        return StoreFile(**base, status="skipped", message=LOCKED)
    if isinstance(exc, Refused):
        return StoreFile(**base, status=exc.status, message=str(exc))
    if isinstance(exc, ContractError):
        reason = f"{exc.field}: {exc.reason}" if exc.field else exc.reason
        return StoreFile(**base, status="error", message=reason)
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return StoreFile(**base, status="error", message=f"{where}{exc.strerror or exc}")
    if isinstance(exc, JpMigrateError):  # e.g. a link planted among the run's directories
        return StoreFile(**base, status="error", message=str(exc))
    raise exc


def _look(
    task: Task, settings: Settings, locks: LockTable
) -> tuple[HeldLock | None, StoredFile, Plan]:
    """The lock first (a `jp` mid-write holds it and leaves its own temporary beside), then
    the task's look. Raises what `failed` reports."""
    conversation = task.conversation
    lock: HeldLock | None = None
    if settings.mode == "write":
        lock = HeldLock(locks, conversation.root.lock_roots, conversation.id)
    elif is_locked(conversation.root.lock_roots, conversation.id):
        raise ConversationLocked(conversation.id)
    try:
        stored, plan = task.look(settings, lock is not None)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    return lock, stored, plan


def commit_many(
    tasks: Iterable[Task], settings: Settings, *, locks: LockTable | None = None
) -> Iterator[Result]:
    """A Result per task, in the order their work ends (a change once committed)."""
    table = locks if locks is not None else LockTable()
    try:
        yield from _commit_many(tasks, settings, table)
    finally:
        if locks is None:
            table.close()  # every lock is released by now


def _commit_many(tasks: Iterable[Task], settings: Settings, locks: LockTable) -> Iterator[Result]:
    # Writers beside the conversions, and a batch made durable beside the next one's writes
    # (a durable job waits only for writes queued before it: three threads never deadlock).
    with ThreadPoolExecutor(COMMIT_THREADS, thread_name_prefix="jp-migrate-commit") as pool:
        committer = Committer(settings, pool) if settings.mode == "write" else None
        try:
            for task in tasks:
                try:
                    lock, stored, planned = _look(task, settings, locks)
                except Exception as exc:  # noqa: BLE001 - failed() re-raises what is no input problem
                    yield Result(failed(task.conversation, exc))
                    continue
                if lock is None or planned.data is None or committer is None:
                    if lock is not None:
                        lock.release()
                    yield Result(planned.file)
                    continue
                yield from committer.add(task.conversation, lock, stored, planned)
            if committer is not None:
                yield from committer.finish()
        finally:
            if committer is not None:
                committer.abandon()  # what a stop left uncommitted: nothing left behind
