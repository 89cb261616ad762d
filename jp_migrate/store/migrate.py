"""Migrate one conversation: load → convert (pure) → write under the conversation's lock.

Runs in a worker process when `--jobs` > 1, so everything it needs travels in a
picklable `Settings`, and everything it did comes back as a `StoreFile` plus the
manifest record of the file it wrote.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from jp_migrate.contract.report import Repair, StoreFile
from jp_migrate.convert.events import is_migrated
from jp_migrate.convert.store_rules import EventsUpgrade, upgrade_events
from jp_migrate.errors import ContractError
from jp_migrate.store import canonical, manifest
from jp_migrate.store.diff import event_diff
from jp_migrate.store.discover import METADATA, Conversation
from jp_migrate.store.load import EventsFile, read_events
from jp_migrate.store.lock import ConversationLocked, conversation_lock, is_locked
from jp_migrate.store.write import atomic_write, fsync_dir, is_read_only, link_or_copy, temp_path

RESPONSE_MARKER = b'"tool_call_response"'  # a file without it has nothing to migrate (fast path)
JP_TEMP = "events.json.tmp"  # JP's own atomic-write temporary (SPEC §3)


@dataclass(frozen=True)
class Settings:
    write: bool = True
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


class Refused(Exception):
    """The conversation is left untouched for a reason that is not bad JSON (reported as one line)."""

    def __init__(self, message: str, status: Literal["error", "skipped"] = "error") -> None:
        super().__init__(message)
        self.status = status


def check_blobs(events: list[Any]) -> None:
    """An already migrated event's `blob` must be base64 (the only payload that is never plain)."""
    for index, event in enumerate(events):
        if not is_migrated(event):
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
    if RESPONSE_MARKER not in loaded.raw:
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


def _repairs(upgrade: EventsUpgrade) -> list[Repair]:
    return [
        Repair(event_index=i, event_id=str(u.event.get("id", "")), field="content", kind="urlsafe-base64")
        for i, u in sorted(upgrade.upgrades.items())
        if u.repaired
    ]


def _preflight(conversation: Conversation) -> None:
    directory = conversation.directory
    if conversation.events.is_symlink():
        raise Refused("events.json is a symlink: not followed")
    if not (directory / METADATA).is_file():
        raise Refused("missing metadata.json: not a complete conversation; left untouched")
    if (directory / JP_TEMP).exists():
        raise Refused(
            f"stray {JP_TEMP} (an interrupted jp write?): inspect and remove it, then rerun; left untouched"
        )


def migrate_conversation(conversation: Conversation, settings: Settings) -> Result:
    """Never raises for bad input: the reason becomes the StoreFile's one-line message."""
    shown = conversation.shown
    base = {"path": shown, "conversation": conversation.name}
    try:
        _preflight(conversation)
        if not settings.write:
            if is_locked(conversation.root.path, conversation.id):
                raise ConversationLocked(conversation.id)
            return _migrate(conversation, settings)
        with conversation_lock(conversation.root.path, conversation.id):
            return _migrate(conversation, settings)
    except ConversationLocked:
        return Result(StoreFile(**base, status="skipped", message="locked by a running jp: skipped"))
    except Refused as exc:
        return Result(StoreFile(**base, status=exc.status, message=str(exc)))
    except ContractError as exc:
        reason = f"{exc.field}: {exc.reason}" if exc.field else exc.reason
        return Result(StoreFile(**base, status="error", message=reason))
    except OSError as exc:
        return Result(StoreFile(**base, status="error", message=f"{exc.strerror or exc}"))


def _migrate(conversation: Conversation, settings: Settings) -> Result:
    shown = conversation.shown
    target = conversation.events
    notes: list[str] = []
    leftover = temp_path(target)
    if leftover.exists() and settings.write:
        leftover.unlink()  # ours, from a killed run; the target itself is intact (atomic rename)
        notes.append(f"removed {leftover.name} left by an interrupted run")
    loaded = read_events(target, source=shown)
    upgrade = convert(loaded, settings, conversation)
    base: dict[str, Any] = {
        "path": shown,
        "conversation": conversation.name,
        "events_total": len(loaded.events),
    }
    if not upgrade.upgrades:
        return Result(StoreFile(**base, status="unchanged", message="; ".join(notes)))
    replaced = {i: u.event for i, u in upgrade.upgrades.items()}
    data = canonical.rewrite(loaded.raw, loaded.events, replaced)
    after = hashlib.sha256(data).hexdigest()
    diff = None
    if settings.diff:
        diff = event_diff(shown, {i: (loaded.events[i], e) for i, e in replaced.items()})
    file = StoreFile(
        **base,
        status="migrated",
        message="; ".join(notes),
        events_migrated=len(replaced),
        repairs=_repairs(upgrade),
        rules=upgrade.rules,
        sha256_before=loaded.sha256,
        sha256_after=after,
        diff=diff,
    )
    if not settings.write:
        return Result(file)
    if is_read_only(target):
        raise Refused("read-only file: left untouched (make it writable to migrate it)")
    record = _write(conversation, settings, data, file)
    return Result(file, record, str(conversation.root.path))


def _write(conversation: Conversation, settings: Settings, data: bytes, file: StoreFile) -> manifest.FileRecord:
    """Backup link, then the journal line, then the atomic rename: a kill at any point leaves
    the file wholly old or wholly new, and a record that can undo it."""
    root = conversation.root.path
    relative = f"{conversation.relative}/{conversation.events.name}"
    backup = None
    if settings.backup and settings.run_id is not None:
        manifest.ensure_state_dir(root)
        backup = manifest.backup_path(root, settings.run_id, relative)
        link_or_copy(conversation.events, backup)
        fsync_dir(backup.parent)
    record = manifest.FileRecord(
        path=relative,
        sha256_before=file.sha256_before or "",
        sha256_after=file.sha256_after or "",
        rules=list(file.rules),
        events_migrated=file.events_migrated,
        backup=f"{manifest.BACKUP}/{relative}" if backup is not None else None,
    )
    if settings.run_id is not None:
        manifest.ensure_state_dir(root)
        manifest.append_journal(root, settings.run_id, record)
    atomic_write(conversation.events, data)
    return record
