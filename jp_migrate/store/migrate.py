"""Migrate conversations: load → convert (pure) → write under each conversation's lock.

The slow part of a safe write is the filesystem: creating, writing and
syncing a file. Writes are therefore committed in batches: each conversation
is locked and converted on the main thread, and its temporary file is created,
written and hashed on a thread pool (system calls release the GIL, so that
runs beside the next conversion; in a `--jobs` worker, on the main thread);
the journal records the batch, the batch is made durable (one syncfs per
filesystem where that is safe, else an fsync per file on the pool: see
`durable`), and only then is each file renamed over its target and unlocked.
A kill at any moment leaves every file wholly old or wholly new. Each worker
of `--jobs` runs one `migrate_many` on its share, so everything here is
picklable: `Settings` in, `Result`s out.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import hashlib
import itertools
import os
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from jp_migrate.contract.report import Repair, StoreFile
from jp_migrate.convert.encoding import decode_payload, may_be_urlsafe
from jp_migrate.convert.events import is_plain_legacy, upgrade_response
from jp_migrate.convert.store_rules import FAITHFUL_RULE, EventsUpgrade, upgrade_events
from jp_migrate.errors import ContractError
from jp_migrate.store import canonical, durable, manifest
from jp_migrate.store.diff import event_diff
from jp_migrate.store.discover import EVENTS, Conversation
from jp_migrate.store.layout import Layout, Refused, inspect
from jp_migrate.store.load import EventsFile, exactly, may_be_wide, read_events
from jp_migrate.store.lock import ConversationLocked, HeldLock, is_locked, release_anchors
from jp_migrate.store.write import (
    commit,
    evict_cached,
    is_read_only,
    link_or_copy,
    temp_path,
    unlink,
    write_temp,
)

RESPONSE_MARKER = b'"tool_call_response"'


def may_hold_response(raw: bytes) -> bool:
    """False only for a file that holds no response: without the marker and without any
    `\\u` escape (`"tool_call_respons\\u0065"` is the same string to JSON). The fast path."""
    return RESPONSE_MARKER in raw or b"\\u" in raw


# Pool threads: with a syncfs per batch they only write and hash beside the conversion, and
# more of them only contend for the GIL (measured: 2 beat 8). In a `--jobs` worker, whose
# siblings keep every core busy, none: it writes and hashes on its conversion thread, and
# one thread syncs its batches (measured 5-10% faster than one writing thread, which fell
# behind, waiting for the GIL after each system call). An fsync per file wants more in
# flight at once (concurrent fsyncs share one journal commit on ext4/xfs).
COMMIT_THREADS = 2
WORKER_COMMIT_THREADS = 0
FSYNC_THREADS = 8
BATCH_FILES = 32  # writes per commit batch (each holds a lock, a descriptor and its bytes)
BATCH_BYTES = 32 * 1024 * 1024  # ... and this many old + new bytes not yet hashed, in two batches

READ_ONLY = "read-only file: left untouched (make it writable to migrate it)"

Mode = Literal["write", "dry-run", "check"]


@dataclass(frozen=True)
class Settings:
    mode: Mode = "write"
    diff: bool = False
    encoding: Literal["auto", "base64", "plain"] = "auto"
    rules: tuple[str, ...] = ()
    matches: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    backup: bool = True
    run_id: str | None = None


@dataclass(frozen=True)
class Result:
    file: StoreFile
    record: manifest.FileRecord | None = None
    root: str = ""


@dataclass
class Pending:
    """A conversation whose new bytes are written to a temporary file, awaiting commit."""

    conversation: Conversation
    settings: Settings
    lock: HeldLock
    tmp: str
    raw: bytes
    data: bytes
    file: StoreFile
    mode: int  # the permissions the new file gets (the original's)
    times: tuple[int, int] | None  # the original's (atime, mtime) in ns, kept
    owner: tuple[int, int] | None  # the original's (uid, gid), kept where we may
    spare: str | None = None  # a parked original to overwrite instead of creating a file
    fd: int = -1  # the temporary, open between its write and its fsync
    sha256_before: str = ""
    sha256_after: str = ""
    record: manifest.FileRecord | None = None
    synced: Future[None] | None = None  # fsync + hashes, running on the pool
    discard: str | None = None  # without a backup: the old inode's last link, reused or unlinked
    size_before: int = 0
    device: int | None = None  # the target's st_dev
    batched: bool = False  # made durable by its batch's syncfs, not an fsync of its own
    kept: int = 0  # leading bytes `data` surely shares with `raw`


def _hashes(old: bytes, new: bytes, kept: int) -> tuple[str, str]:
    """The sha256 of `old` and of `new`, their first `kept` bytes (the same in both) hashed
    once: SHA-256 reads its input in order, so a copy of the state after them serves both."""
    view_old, view_new = memoryview(old), memoryview(new)
    after = hashlib.sha256(view_old[:kept])
    before = after.copy()
    before.update(view_old[kept:])
    after.update(view_new[kept:])
    return before.hexdigest(), after.hexdigest()


def check_blobs(events: list[Any]) -> None:
    """An already migrated event's `blob` must be base64: the one payload that is never plain.

    This is what "invalid base64" means for a store: a legacy string that is not
    valid base64 is plain text by SPEC §3's detection order, never an error.
    """
    for index, event in enumerate(events):
        # is_migrated, inlined (this loop visits every event of every file)
        if (
            type(event) is not dict
            or type(event.get("content")) is not list
            or event.get("type") != "tool_call_response"
        ):
            continue
        for position, block in enumerate(event["content"]):
            resource = block.get("resource") if isinstance(block, dict) else None
            blob = resource.get("blob") if isinstance(resource, dict) else None
            if isinstance(blob, str):
                try:
                    base64.b64decode(blob, validate=True)
                except (binascii.Error, ValueError):
                    raise ContractError(
                        "invalid base64", field=f"[{index}].content[{position}].resource.blob"
                    ) from None


def convert(loaded: EventsFile, settings: Settings, conversation: Conversation) -> EventsUpgrade:
    if not may_hold_response(loaded.raw):
        return EventsUpgrade(events=loaded.events)
    check_blobs(loaded.events)
    workspace = conversation.root.workspace
    return upgrade_events(
        loaded.events,
        encoding=settings.encoding,
        rules=settings.rules,
        root=str(workspace) if workspace is not None else None,
        matches=settings.matches,
    )


def count_legacy(
    loaded: EventsFile, encoding: Literal["auto", "base64", "plain"]
) -> tuple[int, list[Repair]]:
    """`--check`: how many responses a run would migrate, and the repairs it would make.

    The verdicts are `upgrade_response`'s: a response of the common shape passes
    the same test its fast path uses, any other goes through it (so a bad one fails
    here exactly as in a real run), and a file the rewrite would refuse (a repeated
    field, nested too deeply) is refused. Only URL-safe candidates are decoded, and
    no new event or file is built.
    """
    if not may_hold_response(loaded.raw):
        return 0, []
    check_blobs(loaded.events)
    counted: list[int] = []
    repairs: list[Repair] = []
    for index, event in enumerate(loaded.events):
        # is_response, inlined (this loop visits every event of every file); both parsers
        # (orjson, json) build plain dicts only
        if type(event) is not dict or event.get("type") != "tool_call_response":
            continue
        if is_plain_legacy(event):  # the common case, checked without building the new event
            counted.append(index)
            content = event["content"]
            if may_be_urlsafe(content) and decode_payload(content)[1] == "urlsafe":
                repairs.append(_repair(index, event))
            continue
        try:
            upgrade = upgrade_response(event, encoding=encoding)
        except ContractError as exc:
            raise ContractError(exc.reason, field=f"[{index}].{exc.field}".rstrip(".")) from None
        if upgrade is not None:
            counted.append(index)
            if upgrade.repaired:
                repairs.append(_repair(index, event))
    canonical.check_rewritable(loaded.raw, loaded.events, counted)
    return len(counted), repairs


def _repair(index: int, event: dict[str, Any]) -> Repair:
    return Repair(
        event_index=index, event_id=str(event.get("id", "")), field="content", kind="urlsafe-base64"
    )


def _repairs(upgrade: EventsUpgrade) -> list[Repair]:
    return [_repair(i, u.event) for i, u in sorted(upgrade.upgrades.items()) if u.repaired]


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
        return Result(StoreFile(**base, status="error", message=f"{exc.strerror or exc}"))
    raise exc


def _prepare(conversation: Conversation, settings: Settings) -> Result | Pending:
    """Everything up to the temporary file; a Result when there is nothing to commit."""
    lock: HeldLock | None = None
    try:
        # The lock first: a `jp` mid-write holds it and leaves its own temporary beside.
        if settings.mode == "write":
            lock = HeldLock(conversation.root.lock_roots, conversation.id)
        elif is_locked(conversation.root.lock_roots, conversation.id):
            raise ConversationLocked(conversation.id)
        layout = inspect(conversation)
        outcome = _convert(conversation, settings, lock, layout)
        if isinstance(outcome, Result) and lock is not None:
            lock.release()
        return outcome
    except Exception as exc:  # noqa: BLE001 - _error re-raises what is not a reportable input problem
        if lock is not None:
            lock.release()
        return _error(conversation, exc)


def _convert(
    conversation: Conversation, settings: Settings, lock: HeldLock | None, layout: Layout
) -> Result | Pending:
    shown = conversation.shown
    target = conversation.events
    notes: list[str] = []
    if lock is not None and layout.leftover:
        # Ours, from a killed run; the target itself is intact (the rename is atomic).
        unlink(temp_path(target))
        notes.append(f"removed {os.path.basename(temp_path(target))} left by an interrupted run")
    loaded = read_events(target, source=shown)
    base: dict[str, Any] = {
        "path": shown,
        "conversation": conversation.name,
        "events_total": len(loaded.events),
    }
    if settings.mode == "check" and not settings.diff and not settings.rules:
        # The fast count: no event is built. With rules, the full conversion below
        # reports which rule applied to which file, as a dry run does.
        count, repairs = count_legacy(loaded, settings.encoding)
        if count and is_read_only(target, loaded.mode):
            raise Refused(READ_ONLY)
        status = "migrated" if count else "unchanged"
        rules = [FAITHFUL_RULE] if count else []  # no rule selected: each would be faithful
        return Result(
            StoreFile(**base, status=status, events_migrated=count, repairs=repairs, rules=rules)
        )
    upgrade = convert(loaded, settings, conversation)
    if any(may_be_wide(u.event) for u in upgrade.upgrades.values()):
        loaded = exactly(loaded, source=shown)  # an integer orjson made a double is rewritten
        upgrade = convert(loaded, settings, conversation)
    if not upgrade.upgrades:
        return Result(StoreFile(**base, status="unchanged", message="; ".join(notes)))
    if is_read_only(target, loaded.mode):  # a dry run reports what a real run would refuse
        raise Refused(READ_ONLY)
    replaced = {i: u.event for i, u in upgrade.upgrades.items()}
    data, kept = canonical.rewrite_keeping(loaded.raw, loaded.events, replaced)
    diff = (
        event_diff(shown, {i: (loaded.events[i], e) for i, e in replaced.items()})
        if settings.diff
        else None
    )
    file = StoreFile(
        **base,
        status="migrated",
        message="; ".join(notes),
        events_migrated=len(replaced),
        repairs=_repairs(upgrade),
        rules=upgrade.rules,
        diff=diff,
    )
    if lock is None:
        sha_before, sha_after = _hashes(loaded.raw, data, kept)
        return Result(
            file.model_copy(update={"sha256_before": sha_before, "sha256_after": sha_after})
        )
    spare = _take_spare(conversation.root.fspath, len(data)) if not settings.backup else None
    if settings.run_id is not None:
        _ensure_state_dir(conversation.root.path)  # here, once: the pool threads link into it
    return Pending(
        conversation,
        settings,
        lock,
        temp_path(target),
        loaded.raw,
        data,
        file,
        loaded.mode,
        loaded.times,
        loaded.owner,
        spare,
        size_before=len(loaded.raw),
        device=loaded.device,
        kept=kept,
    )


# Without backups, a replaced original (parked as `discard`) is reused as a later
# conversation's temporary file: overwriting an inode's blocks costs a fraction
# of creating a file on ext4. (With backups every original is kept, so no.)
SPARES_MAX = 4 * BATCH_FILES  # more parked: fewer originals freed mid-run (that costs blocks)
_SPARES: dict[str, list[tuple[int, str]]] = {}  # storage root → (size, parked original), sorted
# Originals replaced by batch N wait here until a sync that began after their renames has
# ended (batch N+2's: N+1 was sealed before N's renames). Overwritten sooner, a crash
# before the rename reached the disk would leave the old name on the overwritten inode.
_RESTING: list[tuple[int, str, int, str]] = []  # (batch number, root, size, path)


BLOCK = 4096  # the usual filesystem block size


def _take_spare(root: str, size: int) -> str | None:
    """The largest parked original that needs no blocks freed to hold `size` bytes, or None.

    Growing a file only allocates blocks, but cutting blocks off one (ftruncate)
    costs several times more than creating a new file on ext4 (measured 190 µs
    against 70 µs): a spare that would have to shrink is not used.
    """
    spares = _SPARES.get(root)
    if not spares:
        return None
    fits = bisect.bisect_right(spares, -(-size // BLOCK) * BLOCK, key=_size)
    return spares.pop(fits - 1)[1] if fits else None


def _size(spare: tuple[int, str]) -> int:
    return spare[0]


def _park_spare(root: str, size: int, path: str, pool: ThreadPoolExecutor) -> None:
    """Keep a replaced original for reuse (by size); when enough are parked, drop the largest."""
    spares = _SPARES.setdefault(root, [])
    bisect.insort(spares, (size, path), key=_size)
    if len(spares) > SPARES_MAX:
        pool.submit(_drop, spares.pop()[1])


def _rest_spare(number: int, root: str, size: int, path: str) -> None:
    _RESTING.append((number, root, size, path))


def _wake_spares(synced: int, pool: ThreadPoolExecutor) -> None:
    """Batch `synced`'s sync has ended: the originals replaced by batch `synced - 2` or
    earlier are safe on disk under their new names, and may be overwritten."""
    while _RESTING and _RESTING[0][0] <= synced - 2:
        _, root, size, path = _RESTING.pop(0)
        _park_spare(root, size, path, pool)


def _drop_spares(pool: ThreadPoolExecutor) -> None:
    while _RESTING:
        pool.submit(_drop, _RESTING.pop()[3])
    while _SPARES:
        for _, path in _SPARES.popitem()[1]:
            pool.submit(_drop, path)


def _sync(pending: Pending) -> None:
    """On a pool thread: write the temporary (and fsync it, unless its batch syncs it; GIL
    released), hash old and new bytes, and link the original as its backup (its manifest
    record)."""
    target = pending.conversation.events
    if pending.settings.backup:
        # The original is now only its backup: free its cached pages for the new file's.
        # (Without backups it is kept as a spare to overwrite, and its pages serve that.)
        evict_cached(target)
    _, pending.fd = write_temp(
        target,
        pending.data,
        pending.mode,
        spare=pending.spare,
        times=pending.times,
        owner=pending.owner,
    )
    try:
        if not pending.batched:
            os.fsync(pending.fd)
    finally:
        os.close(pending.fd)
        pending.fd = -1
    pending.sha256_before, pending.sha256_after = _hashes(pending.raw, pending.data, pending.kept)
    pending.raw = pending.data = b""  # hashed and on disk: a waiting batch holds no file bytes
    pending.record = _record(pending)


def _record(pending: Pending) -> manifest.FileRecord:
    """The manifest line for a pending write, after linking its backup (the original inode)."""
    conversation, settings = pending.conversation, pending.settings
    relative = f"{conversation.relative}/{EVENTS}"
    backup = None
    if settings.run_id is not None:
        if settings.backup:
            backup = manifest.backup_path(conversation.root.fspath, settings.run_id, relative)
            link_or_copy(conversation.events, backup)
        else:
            pending.discard = _keep_for_discard(conversation, settings.run_id)
    return manifest.FileRecord(
        path=relative,
        sha256_before=pending.sha256_before,
        sha256_after=pending.sha256_after,
        rules=list(pending.file.rules),
        events_migrated=pending.file.events_migrated,
        backup=manifest.backup_name(relative) if backup is not None else None,
    )


_STATE_DIRS: set[Path] = set()


def _ensure_state_dir(root: Path) -> None:
    """`<root>/.jp-migrate/` with its `.gitignore`, checked once per root and process."""
    if root not in _STATE_DIRS:
        manifest.ensure_state_dir(root)
        _STATE_DIRS.add(root)


def _keep_for_discard(conversation: Conversation, run_id: str) -> str | None:
    """A second link to the original, so the rename does not free its blocks.

    Freeing a replaced file's data happens inside the rename on ext4 and costs as
    much as writing it; with this link, the last unlink frees it on a pool thread.
    """
    path = manifest.discard_path(conversation.root.fspath, run_id, conversation.relative)
    unlink(path)  # never through a link planted there
    try:
        os.link(conversation.events, path)
    except OSError:
        return None  # no links here: the rename frees the file itself
    return path


def _abandon(pending: Pending, exc: Exception) -> Result:
    if pending.discard is not None:
        unlink(pending.discard)
    if pending.fd >= 0:
        os.close(pending.fd)
        pending.fd = -1
    unlink(pending.tmp)
    pending.lock.release()
    return _error(pending.conversation, exc)


def _drop(path: str) -> None:
    unlink(path)


@dataclass
class _Durable:
    """A batch made durable (on the pool): the files ready to rename, those whose write
    failed, and an error that spoils all of them (a sync or journal failure)."""

    ready: list[Pending]
    failed: list[tuple[Pending, OSError]]
    error: OSError | None = None


@dataclass
class _Batch:
    """Pending writes committed together, and what makes them durable."""

    number: int = 0
    pending: list[Pending] = field(default_factory=list)
    size: int = 0  # old + new bytes held
    durability: durable.BatchSync = field(default_factory=durable.BatchSync)
    sealed: Future[_Durable] | None = None  # sync + journal, running on the pool
    # storage root → whether the batch's sync covers its run directory (backups, journal)
    runs_synced: dict[str, bool] = field(default_factory=dict)

    def add(self, pending: Pending) -> None:
        """Before its temporary, its backup and its journal line are written: their
        filesystems are watched from now on."""
        pending.batched = self.durability.watch(pending.conversation.directory, pending.device)
        root, run_id = pending.conversation.root, pending.settings.run_id
        if run_id is not None and root.fspath not in self.runs_synced:
            directory = manifest.make_run_dir(root.path, run_id)
            self.runs_synced[root.fspath] = self.durability.watch(directory)
        self.pending.append(pending)
        self.size += len(pending.raw) + len(pending.data)

    def full(self) -> bool:
        return len(self.pending) >= BATCH_FILES or self.size >= BATCH_BYTES // 2

    def seal(self, pool: ThreadPoolExecutor) -> None:
        """No more files: sync and journal it on the pool, beside the next conversions."""
        self.sealed = pool.submit(_make_durable, self)

    def close(self) -> None:
        """Its descriptors, once nothing of the batch is being synced any more."""
        if self.sealed is not None:
            wait([self.sealed])
        self.durability.close()

    def abandon(self) -> None:
        """The consumer stopped early: every target not yet renamed is left untouched."""
        self.close()  # nothing of the batch is being synced any more
        for pending in self.pending:
            if pending.synced is not None:
                wait([pending.synced])  # its temporary is written (or failed) before removal
            if pending.fd >= 0 or os.path.lexists(pending.tmp):
                _abandon(pending, OSError("interrupted"))


def _make_durable(batch: _Batch) -> _Durable:
    """On a pool thread, once every file of the batch is queued: wait for the writes, record
    them in the journal, and make it all durable (one flush). When that fails, the journal
    names files the run leaves as they were: their backups stay, so a rollback of a run
    killed later restores their own bytes; a run that ends keeps no record of them."""
    done = _Durable(ready=[], failed=[])
    for pending in batch.pending:
        assert pending.synced is not None
        try:
            pending.synced.result()
            done.ready.append(pending)
        except OSError as exc:
            done.failed.append((pending, exc))
    by_root: dict[tuple[Path, str], list[manifest.FileRecord]] = {}
    for pending in done.ready:
        if pending.settings.run_id is not None and pending.record is not None:
            key = (pending.conversation.root.path, pending.settings.run_id)
            by_root.setdefault(key, []).append(pending.record)
    try:
        for (root, run_id), records in by_root.items():
            synced = batch.runs_synced[os.fspath(root)]
            manifest.append_journal(root, run_id, records, fsync=not synced)
        batch.durability.sync()  # the files, their backups and the journal
    except OSError as exc:
        done.error = exc
    return done


def _commit_batch(batch: _Batch, pool: ThreadPoolExecutor) -> Iterator[Result]:
    """Once the batch is durable: rename and unlock each file (or abandon it)."""
    try:
        yield from _commit(batch, pool)
    finally:
        batch.close()


def _commit(batch: _Batch, pool: ThreadPoolExecutor) -> Iterator[Result]:
    if batch.sealed is None:  # the empty one before the first
        assert not batch.pending
        return
    done = batch.sealed.result()
    _wake_spares(batch.number, pool)
    for pending, exc in done.failed:
        yield _abandon(pending, exc)
    if done.error is not None:
        for pending in done.ready:
            yield _abandon(pending, done.error)
        return
    for pending in done.ready:
        try:
            commit(pending.tmp, pending.conversation.events)
        except OSError as exc:
            yield _abandon(pending, exc)
            continue
        pending.lock.release()
        if pending.discard is not None:
            _rest_spare(
                batch.number,
                pending.conversation.root.fspath,
                pending.size_before,
                pending.discard,
            )
        file = pending.file.model_copy(
            update={"sha256_before": pending.sha256_before, "sha256_after": pending.sha256_after}
        )
        yield Result(file, pending.record, pending.conversation.root.fspath)


def _threads(first: Conversation, writers: int) -> int:
    """The pool's size: `writers` (at least one, for the batches' syncs), or more when the
    first conversation's filesystem takes no syncfs (an fsync per file)."""
    try:
        return max(1, writers) if durable.batchable(first.directory) else FSYNC_THREADS
    except OSError:  # gone: its own processing reports that
        return FSYNC_THREADS


def _written(pending: Pending) -> Future[None]:
    """`_sync` on this thread, as a finished future (what the pool would have returned)."""
    done: Future[None] = Future()
    try:
        _sync(pending)
    except Exception as exc:  # noqa: BLE001 - kept for the batch, as the pool keeps it
        done.set_exception(exc)
    else:
        done.set_result(None)
    return done


def migrate_many(
    conversations: Iterable[Conversation], settings: Settings, *, writers: int = COMMIT_THREADS
) -> Iterator[Result]:
    """A Result per conversation; writes are committed in batches (see the module docstring),
    written by `writers` threads beside the conversions; with none, on this thread (a file
    that its batch does not sync, with an fsync of its own, still goes to the pool)."""
    if settings.mode != "write":
        for conversation in conversations:
            outcome = _prepare(conversation, settings)
            assert isinstance(outcome, Result)
            yield outcome
        return
    remaining = iter(conversations)
    first = next(remaining, None)
    if first is None:
        return
    _STATE_DIRS.clear()  # checked again by every run: a user may have removed it meanwhile
    # Two batches in flight: a full batch is sealed (journal and sync on the pool) and
    # committed (renamed) only once the next one is full, so its writes and its sync ran
    # while the next was converted, and the renames rarely wait for the disk.
    durable.forget()  # filesystems are looked at again by every run
    previous, batch = _Batch(), _Batch(number=1)
    with ThreadPoolExecutor(
        _threads(first, writers), thread_name_prefix="jp-migrate-commit"
    ) as pool:
        try:
            for conversation in itertools.chain([first], remaining):
                outcome = _prepare(conversation, settings)
                if isinstance(outcome, Result):
                    yield outcome
                    continue
                try:
                    batch.add(outcome)
                except OSError as exc:
                    yield _abandon(outcome, exc)
                    continue
                if writers or not outcome.batched:
                    outcome.synced = pool.submit(_sync, outcome)  # beside the next conversion
                else:
                    outcome.synced = _written(outcome)
                if batch.full():
                    batch.seal(pool)
                    yield from _commit_batch(previous, pool)
                    previous, batch = batch, _Batch(number=batch.number + 1)
            batch.seal(pool)
            yield from _commit_batch(previous, pool)
            previous = _Batch()
            yield from _commit_batch(batch, pool)
            batch = _Batch()
        finally:
            previous.abandon()
            batch.abandon()
            _drop_spares(pool)
            release_anchors()  # every conversation lock is released by now


def migrate_conversation(conversation: Conversation, settings: Settings) -> Result:
    """One conversation, committed before returning. Never raises for bad input."""
    return next(iter(migrate_many([conversation], settings)))


__all__ = ["Result", "Settings", "migrate_conversation", "migrate_many"]
