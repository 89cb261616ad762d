"""`conversations --check-integrity`: check a migrated store without changing it.

Per file: it parses; every migrated response's blocks decode and render to the
text its legacy original held (the original from this file's newest backup when
there is one); no legacy response is left; with a backup, every other event is
unchanged. Events that would not survive a downgrade are reported as warnings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jp_migrate.contract.report import StoreFile
from jp_migrate.convert.encoding import decode_payload
from jp_migrate.convert.events import (
    is_migrated,
    is_response,
    stored_payload_text,
    survives_downgrade,
)
from jp_migrate.errors import ContractError, JpMigrateError
from jp_migrate.store import manifest
from jp_migrate.store.discover import EVENTS, Conversation
from jp_migrate.store.layout import Refused, inspect
from jp_migrate.store.load import parse_events, read_events
from jp_migrate.store.lock import ConversationLocked, is_locked
from jp_migrate.store.pipeline import failed
from jp_migrate.store.plan import check_blobs

Backups = dict[Path, dict[str, Path]]  # per storage root, found once per run: `_backups`


def _backups(root: Path) -> dict[str, Path]:
    """relative events path → its newest backup (runs not rolled back), per storage root."""
    found: dict[str, Path] = {}
    for run_id in reversed(manifest.list_runs(root)):
        try:
            run = manifest.load_run(root, run_id)
        except JpMigrateError:
            run = None  # an unreadable record only means no backup to compare with
        if run is None or run.rolled_back or run.downgrade:
            continue  # a downgrade's backups hold migrated files, not legacy originals
        for record in run.files:
            if record.backup and record.path not in found:
                path = run.directory / record.backup
                if path.is_file():
                    found[record.path] = path
    return found


def _original(conversation: Conversation, backups: Backups) -> list[Any] | None:
    root = conversation.root.path
    if root not in backups:
        backups[root] = _backups(root)
    backup = backups[root].get(f"{conversation.relative}/{EVENTS}")
    if backup is None:
        return None
    try:
        return parse_events(backup.read_bytes(), source=str(backup))
    except (ContractError, OSError):
        return None


def check_events(events: list[Any], original: list[Any] | None) -> tuple[list[str], list[str], int]:
    """(problems, warnings, migrated count) for one file's events."""
    problems: list[str] = []
    warnings: list[str] = []
    legacy: list[str] = []
    migrated = 0
    if original is not None and len(original) > len(events):
        problems.append(f"{len(events)} events, but the backup holds {len(original)}")
        original = None
    try:
        check_blobs(events)
    except ContractError as exc:
        problems.append(f"{exc.field}: {exc.reason}")
    for index, event in enumerate(events):
        # Past the backup's events: JP went on with the conversation since the migration,
        # and a new event has no original to compare with.
        before = original[index] if original is not None and index < len(original) else None
        if not is_response(event):
            if before is not None and before != event:
                problems.append(
                    f"[{index}]: a {event.get('type') if isinstance(event, dict) else 'non-object'} event differs from the backup"
                )
            continue
        if not is_migrated(event):
            legacy.append(f"[{index}] {event.get('id', '')}")
            continue
        migrated += 1
        try:
            text = stored_payload_text(event)
            if not survives_downgrade(event):
                warnings.append(
                    f"[{index}]: {event.get('id', '')} would not survive a downgrade unchanged"
                )
        except ContractError as exc:
            problems.append(
                f"[{index}].{exc.field}: {exc.reason}" if exc.field else f"[{index}]: {exc.reason}"
            )
            continue
        before_content = before.get("content") if isinstance(before, dict) else None
        if isinstance(before_content, str) and text != decode_payload(before_content)[0]:
            problems.append(
                f"[{index}]: {event.get('id', '')} renders differently from its legacy original"
            )
    if legacy:
        problems.insert(
            0,
            f"{len(legacy)} tool_call_response {'event' if len(legacy) == 1 else 'events'} "
            f"not migrated (first: {legacy[0]})",
        )
    return problems, warnings, migrated


def verify_conversation(conversation: Conversation, backups: Backups | None = None) -> StoreFile:
    """One conversation checked; `backups` is the run's, filled as roots are met."""
    shown = conversation.shown
    base: dict[str, Any] = {"path": shown, "conversation": conversation.name}
    try:
        if is_locked(conversation.root.lock_roots, conversation.id):  # first: a jp mid-write
            raise ConversationLocked(conversation.id)
        inspect(conversation)
        loaded = read_events(conversation.events, source=shown)
    except (ConversationLocked, Refused, ContractError) as exc:
        return failed(conversation, exc)
    problems, warnings, migrated = check_events(
        loaded.events, _original(conversation, {} if backups is None else backups)
    )
    status = "error" if problems else "unchanged"
    noun = "problem" if len(problems) == 1 else "problems"
    message = f"{len(problems)} {noun}: {problems[0]}" if problems else ""
    return StoreFile(
        **base,
        status=status,
        message=message,
        events_total=len(loaded.events),
        events_migrated=migrated,
        sha256_before=loaded.sha256,
        problems=problems,
        warnings=warnings,
    )
