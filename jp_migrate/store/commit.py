"""The commit step: planned bytes made durable and renamed into place, in batches.

Every write of the store goes through it: a migration's, a rollback's and a
downgrade's; each plan says which run's journal records it (`Plan.run_id`).

Per file, on the caller's thread: its temporary is created beside it (no
link followed, exclusively) and written. Per batch of files, on one pool
thread while the next batch is converted: the journal records the batch, the
originals are kept as backups (hard links), and the batch is made durable (one
syncfs per filesystem where that is safe, else an fsync per file: `durable`).
Only then is each temporary renamed over its target and its lock released.

The journal is written before any backup is linked, so every backup a run
leaves is named in its journal; a kill at any moment leaves every file wholly
old or wholly new, and a file not renamed is found "as before" by rollback.
A file that cannot be committed is abandoned: its temporary and its backup
link are removed, its lock released, and the error names the file it failed on.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from jp_migrate.contract.report import StoreFile
from jp_migrate.errors import JpMigrateError
from jp_migrate.files import durable
from jp_migrate.files.write import (
    commit,
    evict_cached,
    fsync_path,
    link_or_copy,
    temp_path,
    unlink,
    write_temp,
)
from jp_migrate.store import manifest
from jp_migrate.store.discover import EVENTS, Conversation
from jp_migrate.store.load import StoredFile
from jp_migrate.store.lock import HeldLock
from jp_migrate.store.plan import Plan
from jp_migrate.store.settings import Result, Settings

COMMIT_THREADS = 3  # the pool: two writing temporaries, one making a batch durable
BATCH_FILES = 32  # writes per commit batch (each holds a lock and a descriptor)
BATCH_BYTES = 16 * 1024 * 1024  # ... and at most about this many new bytes

# Tests only: `before-rename:N` stops this process (SIGSTOP) just before its N-th rename,
# inside the write phase, so that a test's kill lands there and nowhere else.
PAUSE = os.environ.get("JP_MIGRATE_TEST_PAUSE", "")


def _failed(doing: str, path: str, exc: OSError | JpMigrateError) -> str:
    """One line naming the file a step failed on (a disk full, a link refused)."""
    if isinstance(exc, OSError):
        return f"{doing} {exc.filename or path}: {exc.strerror or exc}"
    return f"{doing} {path}: {exc}"


@dataclass
class Pending:
    """A conversation whose temporary is written, awaiting its batch's commit."""

    conversation: Conversation
    lock: HeldLock
    file: StoreFile
    record: manifest.FileRecord
    run_id: str  # the run whose journal records it (and keeps its backup)
    tmp: str = ""
    fd: int = -1  # the temporary, open until its batch is durable
    batched: bool = False  # made durable by its batch's syncfs, not an fsync of its own
    written: Future[None] | None = None  # the temporary's write, on the pool
    backup: str | None = None  # the backup link, once made
    discard: str | None = None  # --no-backup: a second name of the original, dropped after
    error: str | None = None  # why it cannot be committed (set on the pool)
    settled: bool = False  # renamed into place, or abandoned: its lock released


@dataclass
class _Batch:
    pending: list[Pending] = field(default_factory=list)
    size: int = 0
    sync: durable.BatchSync = field(default_factory=durable.BatchSync)
    # (storage root, run id) → the run's directory, and whether the batch's sync covers it
    runs: dict[tuple[str, str], tuple[str, bool]] = field(default_factory=dict)
    sealed: Future[str | None] | None = None  # journal + backups + sync, on the pool

    def full(self) -> bool:
        return len(self.pending) >= BATCH_FILES or self.size >= BATCH_BYTES


class Committer:
    """One run's commit pipeline: two batches in flight, the older one being made durable
    while the newer one fills. `add` and `finish` yield the Results of committed batches."""

    def __init__(self, settings: Settings, pool: ThreadPoolExecutor) -> None:
        assert settings.run_id is not None
        self.settings = settings
        self.run_id = settings.run_id
        self.pool = pool
        self.previous: _Batch | None = None
        self.batch = _Batch()
        self.renames = 0
        point, _, count = PAUSE.partition(":")
        self.pause_at = int(count) if point == "before-rename" and count.isdigit() else 0

    def add(
        self, conversation: Conversation, lock: HeldLock, stored: StoredFile, plan: Plan
    ) -> Iterator[Result]:
        """Write the temporary of a planned change (with `stored`'s permissions, times and
        owner, on its filesystem); a full batch is sealed, and the one before it committed."""
        assert plan.data is not None
        relative = f"{conversation.relative}/{EVENTS}"
        # A write undoing a run keeps no backup: what it replaces is that run's output.
        keep = self.settings.backup and plan.action != manifest.UNDO
        record = manifest.FileRecord(
            path=relative,
            sha256_before=plan.file.sha256_before or "",
            sha256_after=plan.file.sha256_after or "",
            rules=list(plan.file.rules),
            events_migrated=plan.file.events_migrated,
            backup=manifest.backup_name(relative) if keep else None,
            action=plan.action,
        )
        pending = Pending(conversation, lock, plan.file, record, plan.run_id or self.run_id)
        batch = self.batch
        root = conversation.root.fspath
        try:
            if (root, pending.run_id) not in batch.runs:
                manifest.ensure_state_dir(conversation.root.path)  # with its .gitignore
                run = manifest.make_run_dir(root, pending.run_id)  # checked: never through a link
                batch.runs[root, pending.run_id] = (run, batch.sync.watch(run))
            # Watched before the temporary is written: its write errors are reported by the sync.
            pending.batched = batch.sync.watch(conversation.directory, stored.device)
        except (OSError, JpMigrateError) as exc:
            yield self._abandon(pending, _failed("writing the run record in", root, exc))
            return
        pending.tmp = temp_path(conversation.events)
        # On a pool thread, beside the next conversion (the system calls release the GIL).
        pending.written = self.pool.submit(_write, pending, plan.data, stored)
        batch.pending.append(pending)
        batch.size += len(plan.data)
        if batch.full():
            yield from self._rotate()

    def _rotate(self) -> Iterator[Result]:
        self.batch.sealed = self.pool.submit(_make_durable, self.batch, self.run_id)
        previous, self.previous, self.batch = self.previous, self.batch, _Batch()
        if previous is not None:
            yield from self._commit(previous)

    def finish(self) -> Iterator[Result]:
        """Commit what is left (the last two batches)."""
        if self.batch.pending:
            yield from self._rotate()
        previous, self.previous = self.previous, None
        if previous is not None:
            yield from self._commit(previous)

    def _commit(self, batch: _Batch) -> Iterator[Result]:
        assert batch.sealed is not None
        error = batch.sealed.result()  # never raises: errors are returned
        batch.sync.close()
        waiting = list(reversed(batch.pending))
        try:
            while waiting:
                yield from self._commit_one(waiting[-1], error)
                waiting.pop()
        finally:  # the consumer stopped early: the rest is left untouched
            for pending in waiting:
                if not pending.settled:
                    self._abandon(pending, "interrupted")
            parked = [p.discard for p in batch.pending if p.discard is not None]
            if parked:
                self.pool.submit(_drop, parked)

    def _commit_one(self, pending: Pending, error: str | None) -> Iterator[Result]:
        failure = pending.error or error
        if failure is not None:
            yield self._abandon(pending, failure)
            return
        self.renames += 1
        if self.renames == self.pause_at:
            os.kill(os.getpid(), signal.SIGSTOP)
        try:
            commit(pending.tmp, pending.conversation.events)
        except OSError as exc:
            yield self._abandon(pending, _failed("renaming", pending.tmp, exc))
            return
        pending.lock.release()
        pending.settled = True
        root = pending.conversation.root.fspath
        yield Result(pending.file, pending.record, root, pending.run_id)

    def _abandon(self, pending: Pending, reason: str) -> Result:
        """The target is left as it was: the temporary and backup link go, the lock too."""
        pending.settled = True
        if pending.written is not None:
            pending.written.result()  # its temporary is written (or failed) before removal
        _close(pending)
        if pending.tmp:
            unlink(pending.tmp)
        if pending.backup is not None:
            unlink(pending.backup)
        pending.lock.release()
        file = pending.file.model_copy(
            update={
                "status": "error",
                "message": reason,
                "events_migrated": 0,
                "sha256_before": None,
                "sha256_after": None,
                "diff": None,
                "repairs": [],
                "rules": [],
            }
        )
        return Result(file)

    def abandon(self) -> None:
        """The run stopped early: every target not yet renamed is left untouched."""
        for batch in (self.previous, self.batch):
            if batch is None:
                continue
            if batch.sealed is not None:
                batch.sealed.result()  # nothing of the batch is being synced any more
            batch.sync.close()
            for pending in batch.pending:
                if not pending.settled:
                    self._abandon(pending, "interrupted")
        self.previous, self.batch = None, _Batch()


def _close(pending: Pending) -> None:
    if pending.fd >= 0:
        os.close(pending.fd)
        pending.fd = -1


def _write(pending: Pending, data: bytes, stored: StoredFile) -> None:
    """On a pool thread: the temporary written (left open for its fsync), or the error."""
    evict_cached(pending.conversation.events)  # read already; only its backup, or nothing, now
    try:
        pending.fd = write_temp(
            pending.tmp, data, stored.mode, times=stored.times, owner=stored.owner
        )
    except OSError as exc:
        pending.error = _failed("writing", pending.tmp, exc)


def _park(pending: Pending, run_id: str) -> None:
    """`--no-backup`: a second name for the original, so that its rename does not free its
    blocks (on ext4 that happens inside the rename, and costs as much as writing them);
    they are freed on the pool after the batch (`_drop`). Without it, the rename frees them."""
    name = manifest.flat_name(pending.conversation.relative.replace("/", "."), EVENTS)
    try:
        path = os.path.join(manifest.discard_dir(pending.conversation.root.fspath, run_id), name)
        unlink(path)  # never through a link planted there
        os.link(pending.conversation.events, path)
        pending.discard = path
    except (OSError, JpMigrateError):
        pass


def _drop(paths: list[str]) -> None:
    for path in paths:
        unlink(path)


def _make_durable(batch: _Batch, run_id: str) -> str | None:
    """On a pool thread, once the batch's writes are queued: journal the batch, keep the
    backups, make it all durable. An error that spoils the whole batch (journal, sync) is
    returned; one of a file is kept on it."""
    for pending in batch.pending:
        assert pending.written is not None
        pending.written.result()  # queued before this job: never waits for a later one
    ready = [pending for pending in batch.pending if pending.error is None]
    by_run: dict[tuple[str, str], list[manifest.FileRecord]] = {}
    for pending in ready:
        key = (pending.conversation.root.fspath, pending.run_id)
        by_run.setdefault(key, []).append(pending.record)
    for key, records in by_run.items():
        run, synced = batch.runs[key]
        try:
            manifest.append_journal(run, records, fsync=not synced)
        except OSError as exc:
            return _failed("recording the batch in", os.path.join(run, manifest.JOURNAL), exc)
    made: dict[tuple[str, str, str], str] = {}  # (root, run, backup directory) → made, checked
    for pending in ready:
        if pending.record.backup is None:
            _park(pending, run_id)
            continue
        root = pending.conversation.root.fspath
        directory, _, name = pending.record.backup.rpartition("/")
        where = (root, pending.run_id, directory)
        backup = ""
        try:
            if where not in made:
                parts = directory.split("/")
                made[where] = manifest.make_run_dir(root, pending.run_id, *parts)
            backup = os.path.join(made[where], name)
            link_or_copy(pending.conversation.events, backup)
            pending.backup = backup
        except (OSError, JpMigrateError) as exc:
            pending.error = _failed("keeping the backup", backup or directory, exc)
    try:
        for pending in ready:
            if not pending.batched and pending.error is None:
                os.fsync(pending.fd)
            _close(pending)
        for (root, run, _), directory in made.items():
            if not batch.runs[root, run][1]:  # the backups' links, where no syncfs covers them
                fsync_path(directory)
        batch.sync.sync()  # the files, their backups and the journal
    except OSError as exc:
        return _failed("syncing the batch to disk at", batch.pending[0].conversation.directory, exc)
    return None
