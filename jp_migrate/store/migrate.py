"""Migrate conversations: per conversation, lock → look → read → plan (pure) → commit.

`--check` and `--dry-run` stop after the plan (`store.plan`): they take no lock
(a held one is only probed) and write nothing. A real run hands each planned
change to the commit step (`store.commit`), which writes, journals, syncs and
renames in batches. Each worker of `--jobs` runs one `migrate_many` on its
share, so everything here is picklable: `Settings` in, `Result`s out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

from jp_migrate.contract.report import StoreFile
from jp_migrate.errors import ContractError, JpMigrateError
from jp_migrate.store.commit import COMMIT_THREADS, Committer
from jp_migrate.store.discover import Conversation
from jp_migrate.store.layout import OUR_TEMP, Refused, inspect
from jp_migrate.store.load import EventsFile, read_events
from jp_migrate.store.lock import ConversationLocked, HeldLock, LockTable, is_locked
from jp_migrate.store.plan import Plan, check_blobs, plan
from jp_migrate.store.settings import Mode, Result, Settings
from jp_migrate.store.write import temp_path, unlink


def _error(conversation: Conversation, exc: Exception) -> Result:
    base = {"path": conversation.shown, "conversation": conversation.name}
    if isinstance(exc, ConversationLocked):
        return Result(
            StoreFile(**base, status="skipped", message="locked by a running jp: skipped")
        )
    if isinstance(exc, Refused):
        return Result(StoreFile(**base, status=exc.status, message=str(exc)))
    if isinstance(exc, ContractError):
        reason = f"{exc.field}: {exc.reason}" if exc.field else exc.reason
        return Result(StoreFile(**base, status="error", message=reason))
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return Result(StoreFile(**base, status="error", message=f"{where}{exc.strerror or exc}"))
    if isinstance(exc, JpMigrateError):
        return Result(StoreFile(**base, status="error", message=str(exc)))
    raise exc


def _look(
    conversation: Conversation, settings: Settings, locks: LockTable
) -> tuple[HeldLock | None, EventsFile, Plan]:
    """The lock first (a `jp` mid-write holds it and leaves its own temporary beside),
    then the directory, the file and the plan. Raises what `_error` reports."""
    lock: HeldLock | None = None
    if settings.mode == "write":
        lock = HeldLock(locks, conversation.root.lock_roots, conversation.id)
    elif is_locked(conversation.root.lock_roots, conversation.id):
        raise ConversationLocked(conversation.id)
    try:
        leftover = inspect(conversation).leftover
        note = ""
        if lock is not None and leftover:
            # Ours, from a killed run; the target itself is intact (the rename is atomic).
            unlink(temp_path(conversation.events))
            note = f"removed {OUR_TEMP} left by an interrupted run"
        loaded = read_events(conversation.events, source=conversation.shown)
        return lock, loaded, plan(conversation, loaded, settings, note)
    except BaseException:
        if lock is not None:
            lock.release()
        raise


def migrate_many(
    conversations: Iterable[Conversation], settings: Settings, *, locks: LockTable | None = None
) -> Iterator[Result]:
    """A Result per conversation, in the order their work ends (a change once committed)."""
    table = locks if locks is not None else LockTable()
    try:
        yield from _migrate_many(conversations, settings, table)
    finally:
        if locks is None:
            table.close()  # every lock is released by now


def _migrate_many(
    conversations: Iterable[Conversation], settings: Settings, locks: LockTable
) -> Iterator[Result]:
    # Writers beside the conversions, and a batch made durable beside the next one's writes
    # (a durable job waits only for writes queued before it: three threads never deadlock).
    with ThreadPoolExecutor(COMMIT_THREADS, thread_name_prefix="jp-migrate-commit") as pool:
        committer = Committer(settings, pool) if settings.mode == "write" else None
        try:
            for conversation in conversations:
                try:
                    lock, loaded, planned = _look(conversation, settings, locks)
                except Exception as exc:  # noqa: BLE001 - _error re-raises what is no input problem
                    yield _error(conversation, exc)
                    continue
                if lock is None or planned.data is None or committer is None:
                    if lock is not None:
                        lock.release()
                    yield Result(planned.file)
                    continue
                yield from committer.add(conversation, lock, loaded, planned)
            if committer is not None:
                yield from committer.finish()
        finally:
            if committer is not None:
                committer.abandon()  # what a stop left uncommitted: nothing left behind


def migrate_conversation(conversation: Conversation, settings: Settings) -> Result:
    """One conversation, committed before returning. Never raises for bad input."""
    return next(iter(migrate_many([conversation], settings)))


__all__ = [
    "Mode",
    "Result",
    "Settings",
    "check_blobs",
    "migrate_conversation",
    "migrate_many",
]
