"""What a rollback does to one conversation: `Restore` and `Downgrade`, tasks of `store.pipeline`.

A rollback's plans go through the same lock, error lines and commit step as a
migration's; only what they plan differs. `Restore` puts back the bytes a run's
backup holds, refusing (unless forced) a file changed since the run wrote it.
`Downgrade` converts migrated events back to the legacy shape where no backup
exists. Each write is journaled in the run it undoes (`Plan.run_id`); a
downgrade of files no run covers is a run of its own.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from typing import Any

from jp_migrate.contract.report import StoreFile
from jp_migrate.convert.events import downgrade_drops, downgrade_response, is_migrated
from jp_migrate.errors import ContractError
from jp_migrate.files.safepath import is_regular
from jp_migrate.files.write import is_read_only
from jp_migrate.store import canonical, manifest
from jp_migrate.store.discover import Conversation
from jp_migrate.store.layout import Refused, inspect
from jp_migrate.store.load import (
    EventsFile,
    StoredFile,
    exactly,
    may_be_wide,
    parse_events,
    read_events,
    read_file,
)
from jp_migrate.store.plan import Plan
from jp_migrate.store.settings import Action, Settings


def _said(settings: Settings, done: str, would: str) -> str:
    """A report's words: what a real run did, or what a dry run would do."""
    return done if settings.mode == "write" else would


@dataclass(frozen=True)
class Restore:
    """Put back the file a run wrote, from its backup; with `downgrade`, convert it back
    where the run kept none."""

    conversation: Conversation  # where it is now (archived or unarchived since the run)
    record: manifest.FileRecord
    run: manifest.Run
    force: bool = False
    downgrade: bool = False

    def look(self, settings: Settings, locked: bool) -> tuple[StoredFile, Plan]:
        conversation, record, run = self.conversation, self.record, self.run
        base: dict[str, Any] = {"path": conversation.shown, "conversation": conversation.name}
        if not os.path.lexists(conversation.events):
            raise Refused("missing: the run wrote it, it is gone now")
        if not is_regular(conversation.events):
            raise Refused("not a regular file (a link?): not followed")
        current = read_file(conversation.events)
        now = current.sha256
        if now == record.sha256_before:
            message = f"already as before run {run.id}"
            return current, Plan(StoreFile(**base, status="unchanged", message=message))
        if now != record.sha256_after and not self.force:
            message = (
                f"changed since run {run.id} wrote it: refusing to roll back (--force to overwrite)"
            )
            return current, Plan(
                StoreFile(**base, status="error", message=message, sha256_before=now)
            )
        backup = manifest.kept_backup(run, record)
        if backup is not None and is_regular(backup):
            kept = read_file(backup)
            if kept.sha256 != record.sha256_before:
                raise Refused(f"backup {backup} does not match the manifest")
            file = StoreFile(
                **base,
                status="migrated",
                message=_said(
                    settings, f"restored from run {run.id}", f"would restore from run {run.id}"
                ),
                sha256_before=now,
                sha256_after=record.sha256_before,
                diff=_restore_diff(conversation.shown, current, kept) if settings.diff else None,
            )
            # The backup's permissions, times and owner (the original's), on the store's disk.
            like = dataclasses.replace(kept, device=current.device)
            return like, Plan(file, kept.raw, action="rollback", run_id=run.id)
        if self.downgrade:
            return Downgrade(conversation, self.force, run.id).look(settings, locked)
        if backup is not None:
            raise Refused(
                f"the backup run {run.id} made of it is missing ({backup}): "
                "use --downgrade to convert it back instead"
            )
        raise Refused(f"run {run.id} kept no backup of it: use --downgrade")


def _restore_diff(shown: str, current: StoredFile, backup: StoredFile) -> str:
    """What a restore would change, event by event (the file as it is → its backup)."""
    from jp_migrate.store.diff import event_diff

    now = parse_events(current.raw, source=shown)
    then = parse_events(backup.raw, source=shown)
    changes = {
        index: (now[index] if index < len(now) else {}, then[index] if index < len(then) else {})
        for index in range(max(len(now), len(then)))
        if index >= len(now) or index >= len(then) or now[index] != then[index]
    }
    return event_diff(shown, changes)


@dataclass(frozen=True)
class Downgrade:
    """Migrated events → legacy, in place (no backup exists to restore).

    A file with binary content a legacy string cannot hold is left, named, unless
    `force`. Journaled in `run_id`, the run it undoes; None: a run of its own, a
    downgrade (which keeps what it replaces, as a migration does).
    """

    conversation: Conversation
    force: bool = False
    run_id: str | None = None

    def look(self, settings: Settings, locked: bool) -> tuple[EventsFile, Plan]:
        conversation = self.conversation
        shown = conversation.shown
        base: dict[str, Any] = {"path": shown, "conversation": conversation.name}
        inspect(conversation)
        loaded = read_events(conversation.events, source=shown)
        migrated = [index for index, event in enumerate(loaded.events) if is_migrated(event)]
        if not self.force:
            for index in migrated:
                dropped = downgrade_drops(loaded.events[index])
                if dropped:
                    raise Refused(
                        f"[{index}]: a downgrade would drop {', '.join(dropped)}, which a "
                        "legacy response cannot hold: not downgraded (--force to drop it)"
                    )
        if any(may_be_wide(loaded.events[index]) for index in migrated):
            loaded = exactly(loaded, source=shown)  # an integer orjson made a double is rewritten
        replaced = {}
        for index in migrated:  # the same events, in either reading
            try:
                replaced[index] = downgrade_response(loaded.events[index])
            except ContractError as exc:
                field = f"[{index}].{exc.field}".rstrip(".")
                raise ContractError(exc.reason, field=field) from None
        if not replaced:
            file = StoreFile(**base, status="unchanged", events_total=len(loaded.events))
            return loaded, Plan(file)
        if is_read_only(conversation.events, loaded.mode):
            raise Refused("read-only file: left untouched")
        data = canonical.rewrite(loaded.raw, loaded.events, replaced)
        diff = None
        if settings.diff:
            from jp_migrate.store.diff import event_diff

            diff = event_diff(shown, {i: (loaded.events[i], replaced[i]) for i in replaced})
        file = StoreFile(
            **base,
            status="migrated",
            message=_said(
                settings,
                "downgraded to legacy responses (no backup)",
                "would downgrade to legacy responses (no backup)",
            ),
            events_total=len(loaded.events),
            events_migrated=len(replaced),
            sha256_before=loaded.sha256,
            sha256_after=hashlib.sha256(data).hexdigest(),
            diff=diff,
        )
        action: Action = "downgrade" if self.run_id is None else "rollback"  # manifest.UNDO
        return loaded, Plan(file, data, action=action, run_id=self.run_id)
