"""`jp-migrate rollback`: undo a migration run (Alembic's downgrade to our upgrade).

Restores each file the run wrote from its backup, byte for byte, under the
conversation's lock, refusing (unless forced) a file changed since the run
wrote it. `downgrade=True` also converts migrated events back to the legacy
shape (`downgrade_response`) in files no backup covers.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jp_migrate.contract.report import StoreFile
from jp_migrate.convert.events import downgrade_drops, downgrade_response, is_migrated
from jp_migrate.errors import ContractError, JpMigrateError
from jp_migrate.store import canonical, lock, manifest
from jp_migrate.store.discover import (
    Conversation,
    StorageRoot,
    discover,
    path_error,
    resolve_all,
)
from jp_migrate.store.layout import Refused, inspect
from jp_migrate.store.load import exactly, may_be_wide, read_events
from jp_migrate.store.lock import ConversationLocked, LockTable, conversation_lock, is_locked
from jp_migrate.store.names import shown_file
from jp_migrate.store.safepath import is_regular
from jp_migrate.store.write import atomic_write, is_read_only, restore, temp_path, unlink


@dataclass(frozen=True)
class RollbackOptions:
    run: str | None = None  # default: the newest run not yet rolled back
    force: bool = False
    downgrade: bool = False
    user_local: bool = True  # a workspace PATH includes JP's user-local storage of it
    dry_run: bool = False  # write nothing (no lock file either): say what would be restored
    diff: bool = False  # put a readable diff of each restore or downgrade in its StoreFile


@dataclass
class RollbackRun:
    files: list[StoreFile]
    runs: list[str] = field(
        default_factory=list
    )  # run ids rolled back (one per storage root at most)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _pick_run(
    root: StorageRoot, wanted: str | None, touching: set[str] | None
) -> manifest.Run | None:
    """`--run ID` (None when this root has no such run, see rollback_stores), else the newest
    run not rolled back; with `touching` (the conversations a PATH names), the newest such
    run that changed one of them (archived or unarchived since)."""
    if wanted is not None:
        return manifest.load_run(root.path, wanted) if manifest.has_run(root.path, wanted) else None
    for run_id in reversed(manifest.list_runs(root.path)):
        run = manifest.load_run(root.path, run_id)
        if run.rolled_back:
            continue
        if touching is None or any(
            _where_now(root, _conversation_for(root, r.path), touching) for r in run.files
        ):
            return run
    return None


def _restore_diff(shown: str, current: Path, backup: Path) -> str:
    """What a restore would change, event by event (the file as it is → its backup)."""
    from jp_migrate.store.diff import event_diff

    now = read_events(os.fspath(current), source=shown).events
    then = read_events(os.fspath(backup), source=os.fspath(backup)).events
    changes = {
        index: (now[index] if index < len(now) else {}, then[index] if index < len(then) else {})
        for index in range(max(len(now), len(then)))
        if index >= len(now) or index >= len(then) or now[index] != then[index]
    }
    return event_diff(shown, changes)


def _downgrade_file(
    conversation: Conversation, force: bool, options: RollbackOptions | None = None
) -> StoreFile:
    """Migrated events → legacy, in place (no backup exists to restore).

    A file with binary content a legacy string cannot hold is left, named,
    unless `force`: a downgrade without a backup cannot be undone.
    """
    shown = conversation.shown
    base: dict[str, Any] = {"path": shown, "conversation": conversation.name}
    inspect(conversation)
    loaded = read_events(conversation.events, source=shown)
    migrated = [index for index, event in enumerate(loaded.events) if is_migrated(event)]
    if not force:
        for index in migrated:
            dropped = downgrade_drops(loaded.events[index])
            if dropped:
                return StoreFile(
                    **base,
                    status="error",
                    message=f"[{index}]: a downgrade would drop {', '.join(dropped)}, which a "
                    "legacy response cannot hold: not downgraded (--force to drop it)",
                )
    if any(may_be_wide(loaded.events[index]) for index in migrated):
        loaded = exactly(loaded, source=shown)  # an integer orjson made a double is rewritten
    replaced = {}
    for index in migrated:  # the same events, in either reading
        try:
            replaced[index] = downgrade_response(loaded.events[index])
        except ContractError as exc:
            raise ContractError(exc.reason, field=f"[{index}].{exc.field}".rstrip(".")) from None
    if not replaced:
        return StoreFile(**base, status="unchanged", events_total=len(loaded.events))
    if is_read_only(conversation.events):
        return StoreFile(**base, status="error", message="read-only file: left untouched")
    if options is not None and options.dry_run:
        from jp_migrate.store.diff import event_diff

        diff = event_diff(shown, {i: (loaded.events[i], replaced[i]) for i in replaced})
        return StoreFile(
            **base,
            status="migrated",
            message="would downgrade to legacy responses (no backup)",
            events_total=len(loaded.events),
            events_migrated=len(replaced),
            diff=diff if options.diff else None,
        )
    data = canonical.rewrite(loaded.raw, loaded.events, replaced)
    atomic_write(conversation.events, data, times=loaded.times)
    return StoreFile(
        **base,
        status="migrated",
        message="downgraded to legacy responses (no backup)",
        events_total=len(loaded.events),
        events_migrated=len(replaced),
        sha256_before=loaded.sha256,
        sha256_after=hashlib.sha256(data).hexdigest(),
    )


def _restore_one(
    conversation: Conversation,
    record: manifest.FileRecord,
    run: manifest.Run,
    options: RollbackOptions,
) -> StoreFile:
    target = Path(conversation.events)  # where it is now (archived or not since the run)
    base: dict[str, Any] = {"path": conversation.shown, "conversation": conversation.name}
    if not os.path.lexists(target):
        return StoreFile(
            **base, status="error", message="missing: the run wrote it, it is gone now"
        )
    if not is_regular(target):
        return StoreFile(
            **base, status="error", message="not a regular file (a link?): not followed"
        )
    current = _sha256(target)
    if current == record.sha256_before:
        return StoreFile(**base, status="unchanged", message=f"already as before run {run.id}")
    if current != record.sha256_after and not options.force:
        return StoreFile(
            **base,
            status="error",
            message=f"changed since run {run.id} wrote it: refusing to roll back (--force to overwrite)",
            sha256_before=current,
        )
    backup = manifest.kept_backup(run, record)
    if backup is not None and not is_regular(backup) and not options.downgrade:
        return StoreFile(
            **base,
            status="error",
            message=f"the backup run {run.id} made of it is missing ({backup}): "
            "use --downgrade to convert it back instead",
        )
    if backup is not None and is_regular(backup):
        if _sha256(backup) != record.sha256_before:
            return StoreFile(
                **base, status="error", message=f"backup {backup} does not match the manifest"
            )
        if options.dry_run:
            return StoreFile(
                **base,
                status="migrated",
                message=f"would restore from run {run.id}",
                sha256_before=current,
                sha256_after=record.sha256_before,
                diff=_restore_diff(conversation.shown, target, backup) if options.diff else None,
            )
        restore(backup, target)
        return StoreFile(
            **base,
            status="migrated",
            message=f"restored from run {run.id}",
            sha256_before=current,
            sha256_after=record.sha256_before,
        )
    if options.downgrade:
        return _downgrade_file(conversation, options.force, options)
    return StoreFile(
        **base, status="error", message=f"run {run.id} kept no backup of it: use --downgrade"
    )


def _locked(
    conversation: Conversation, action: Any, table: LockTable, *, dry_run: bool = False
) -> StoreFile:
    """`action` under the conversation's lock; a dry run only looks whether a `jp` holds it
    (taking it would create a lock file)."""
    try:
        if dry_run:
            if is_locked(conversation.root.lock_roots, conversation.id):
                raise ConversationLocked(conversation.id)
            result: StoreFile = action()
            return result
        with conversation_lock(table, conversation.root.lock_roots, conversation.id):
            result = action()
            return result
    except ConversationLocked:
        return StoreFile(
            path=conversation.shown,
            conversation=conversation.name,
            status="skipped",
            message="locked by a running jp: skipped",
        )
    except Refused as exc:
        return StoreFile(
            path=conversation.shown,
            conversation=conversation.name,
            status=exc.status,
            message=str(exc),
        )
    except ContractError as exc:
        reason = f"{exc.field}: {exc.reason}" if exc.field else exc.reason
        return StoreFile(
            path=conversation.shown, conversation=conversation.name, status="error", message=reason
        )
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return StoreFile(
            path=conversation.shown,
            conversation=conversation.name,
            status="error",
            message=f"{where}{exc.strerror or exc}",
        )
    except JpMigrateError as exc:  # e.g. a link planted among the run's directories
        return StoreFile(
            path=conversation.shown,
            conversation=conversation.name,
            status="error",
            message=str(exc),
        )


def _conversation_for(root: StorageRoot, relative: str) -> Conversation:
    parts = relative.split("/")
    return Conversation(root, parts[-2], archived=len(parts) > 3 and parts[1] == ".archive")


def _whole_roots(paths: list[Path], user_local: bool) -> set[str]:
    """Real paths of the storage roots a PATH names as a whole (not one conversation of)."""
    whole: set[str] = set()
    for path in paths:
        try:
            resolved = resolve_all(path, user_local=user_local)
        except JpMigrateError:
            continue  # discover reported it
        whole.update(os.path.realpath(root.path) for root, only in resolved if only is None)
    return whole


def _where_now(
    root: StorageRoot, conversation: Conversation, wanted: set[str]
) -> Conversation | None:
    """The conversation a record names, found now, archived or unarchived since the run."""
    if conversation.relative in wanted:
        return conversation
    moved = _elsewhere(root, conversation)
    return moved if moved.relative in wanted else None


def _elsewhere(root: StorageRoot, conversation: Conversation) -> Conversation:
    """The same conversation archived, or unarchived when it is archived (`jp conversation archive`)."""
    return Conversation(root, conversation.name, archived=not conversation.archived)


def _backed_up(root: Path) -> dict[str, str]:
    """Conversation (relative) → the newest run not rolled back that holds a backup of it."""
    out: dict[str, str] = {}
    for run_id in manifest.list_runs(root):
        run = manifest.load_run(root, run_id)
        if not run.rolled_back:
            out.update((r.path.rsplit("/", 1)[0], run.id) for r in run.files if r.backup)
    return out


def _tidy(conversations: list[Conversation], table: LockTable) -> None:
    """What a killed run left besides its record: its lock files, and its temporaries
    (each removed under its conversation's lock: a live run holds it while writing one)."""
    for lock_root in sorted({r for c in conversations for r in c.root.lock_roots}):
        lock.sweep(lock_root)
    for root in {c.root.path for c in conversations}:
        manifest.clear_discards(root)
    for conversation in conversations:
        leftover = temp_path(conversation.events)
        if os.path.lexists(leftover):
            try:
                with conversation_lock(table, conversation.root.lock_roots, conversation.id):
                    unlink(leftover)
            except (ConversationLocked, OSError, JpMigrateError):
                pass  # a live run's, or one the next run removes


def rollback_stores(paths: list[Path], options: RollbackOptions) -> RollbackRun:
    """Roll back the chosen run in every storage root under `paths` (restricted to the conversations named)."""
    unresolved: list[tuple[Path, str]] = []
    found = discover(paths, user_local=options.user_local, errors=unresolved)
    by_root: dict[str, tuple[StorageRoot, set[str]]] = {}
    for item in found:
        conversation = item if isinstance(item, Conversation) else item.conversation
        entry = by_root.setdefault(
            os.path.realpath(conversation.root.path), (conversation.root, set())
        )
        entry[1].add(conversation.relative)
    if not by_root:
        bad = {path for path, _ in unresolved}
        for path in paths:
            if path not in bad:
                for root, _ in resolve_all(path, user_local=options.user_local):
                    by_root.setdefault(os.path.realpath(root.path), (root, set()))
    whole = _whole_roots(paths, options.user_local)
    # Every root's run is picked before anything is restored. `--run ID` names one run,
    # which a workspace's `.jp/` and its user-local storage may not both have: an error
    # only when no root has it.
    picked = [
        (
            root,
            wanted,
            _pick_run(root, options.run, None if real in whole else wanted),
        )
        for real, (root, wanted) in by_root.items()
    ]
    if options.run is not None and all(run is None for _, _, run in picked):
        where = ", ".join(str(manifest.state_dir(root.path)) for root, _, _ in picked)
        raise JpMigrateError(f"{where}: no run {options.run!r}")
    files: list[StoreFile] = [path_error(path, reason) for path, reason in unresolved]
    table = LockTable()
    conversations = [item for item in found if isinstance(item, Conversation)]
    if not options.dry_run:  # a dry run writes nothing, not even a cleanup
        _tidy(conversations, table)
    rolled: list[str] = []
    for root, wanted, run in picked:
        covered: set[str] = set()
        if run is not None:
            results = []
            for record in run.files:
                recorded = _conversation_for(root, record.path)
                conversation = _where_now(root, recorded, wanted)
                if conversation is None:
                    if os.path.realpath(root.path) in whole:  # the store named whole: it is gone
                        results.append(
                            StoreFile(
                                path=recorded.shown,
                                conversation=recorded.name,
                                status="error",
                                message=f"missing: run {run.id} wrote it, it is gone now",
                            )
                        )
                    continue
                covered.add(recorded.relative)
                covered.add(conversation.relative)
                results.append(
                    _locked(
                        conversation,
                        lambda c=conversation, r=record, u=run: _restore_one(c, r, u, options),
                        table,
                        dry_run=options.dry_run,
                    )
                )
            files.extend(results)
            if results and all(f.status in ("migrated", "unchanged") for f in results):
                if covered >= {r.path.rsplit("/", 1)[0] for r in run.files} and not options.dry_run:
                    manifest.mark_rolled_back(root.path, run.id)
                rolled.append(run.id)
        if options.downgrade:
            backed = _backed_up(root.path)
            for item in found:
                if not (
                    isinstance(item, Conversation)
                    and item.root == root
                    and item.relative not in covered
                ):
                    continue
                holder = backed.get(item.relative) or backed.get(_elsewhere(root, item).relative)
                if holder is not None:  # restored byte for byte by its own run, not downgraded
                    files.append(
                        StoreFile(
                            path=item.shown,
                            conversation=item.name,
                            status="skipped",
                            message=f"run {holder} holds its backup: not downgraded "
                            f"(jp-migrate rollback --run {holder})",
                        )
                    )
                    continue
                files.append(
                    _locked(
                        item,
                        lambda c=item: _downgrade_file(c, options.force, options),
                        table,
                        dry_run=options.dry_run,
                    )
                )
    table.close()
    files = [shown_file(f) for f in files]
    files.sort(key=lambda f: f.path)
    return RollbackRun(files, rolled)
