"""The pure step of a migration: a conversation's bytes in, its planned bytes and report out.

`--check`, `--dry-run` and a real run all go through `plan`; only a real run
hands the planned bytes on to the commit step (`store.commit`). Nothing here
touches the filesystem.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from typing import Any

from jp_migrate.contract.report import Repair, StoreFile
from jp_migrate.convert.encoding import decode_payload, may_be_urlsafe
from jp_migrate.convert.events import is_plain_legacy, upgrade_response
from jp_migrate.convert.store_rules import FAITHFUL_RULE, EventsUpgrade, upgrade_events
from jp_migrate.errors import ContractError
from jp_migrate.store import canonical
from jp_migrate.store.diff import event_diff
from jp_migrate.store.discover import Conversation
from jp_migrate.store.layout import Refused
from jp_migrate.store.load import EventsFile, exactly, may_be_wide
from jp_migrate.store.settings import Action, Encoding, Settings

RESPONSE_MARKER = b'"tool_call_response"'
READ_ONLY = "read-only file: left untouched (make it writable to migrate it)"


@dataclass(frozen=True)
class Plan:
    """What a run does to one file; the same for a dry run and a real one, which alone
    hands `data` to the commit step."""

    file: StoreFile  # the report; for a change, with both sha256s
    data: bytes | None = None  # the new bytes; None when the file stays as it is
    action: Action = "migrate"  # as its journal records it (manifest.FileRecord.action)
    run_id: str | None = None  # the run whose journal records it; None: the committing run's


def may_hold_response(raw: bytes) -> bool:
    """False only for a file that holds no response: without the marker and without any
    `\\u` escape (`"tool_call_respons\\u0065"` is the same string to JSON). The fast path."""
    return RESPONSE_MARKER in raw or b"\\u" in raw


def hashes(old: bytes, new: bytes, kept: int) -> tuple[str, str]:
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


def count_legacy(loaded: EventsFile, encoding: Encoding) -> tuple[int, list[Repair]]:
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


def plan(
    conversation: Conversation, loaded: EventsFile, settings: Settings, note: str = ""
) -> Plan:
    """What a run does to one conversation; raises ContractError or Refused for one it
    cannot migrate. `note` goes into the report (something done before, e.g. a leftover
    removed)."""
    shown = conversation.shown
    base: dict[str, Any] = {
        "path": shown,
        "conversation": conversation.name,
        "events_total": len(loaded.events),
    }
    if settings.mode == "check" and not settings.diff and not settings.rules:
        # The fast count: no event is built. With rules, the full conversion below
        # reports which rule applied to which file, as a dry run does.
        count, repairs = count_legacy(loaded, settings.encoding)
        if count and _read_only(loaded):
            raise Refused(READ_ONLY)
        status = "migrated" if count else "unchanged"
        rules = [FAITHFUL_RULE] if count else []  # no rule selected: each would be faithful
        return Plan(
            StoreFile(**base, status=status, events_migrated=count, repairs=repairs, rules=rules)
        )
    upgrade = convert(loaded, settings, conversation)
    if any(may_be_wide(u.event) for u in upgrade.upgrades.values()):
        loaded = exactly(loaded, source=shown)  # an integer orjson made a double is rewritten
        upgrade = convert(loaded, settings, conversation)
    if not upgrade.upgrades:
        return Plan(StoreFile(**base, status="unchanged", message=note))
    if _read_only(loaded):  # a dry run reports what a real run would refuse
        raise Refused(READ_ONLY)
    replaced = {i: u.event for i, u in upgrade.upgrades.items()}
    data, kept = canonical.rewrite_keeping(loaded.raw, loaded.events, replaced)
    before, after = hashes(loaded.raw, data, kept)
    diff = (
        event_diff(shown, {i: (loaded.events[i], e) for i, e in replaced.items()})
        if settings.diff
        else None
    )
    repairs = [_repair(i, u.event) for i, u in sorted(upgrade.upgrades.items()) if u.repaired]
    file = StoreFile(
        **base,
        status="migrated",
        message=note,
        events_migrated=len(replaced),
        repairs=repairs,
        rules=upgrade.rules,
        diff=diff,
        sha256_before=before,
        sha256_after=after,
    )
    return Plan(file, data)


def _read_only(loaded: EventsFile) -> bool:
    """By the mode bits, so the answer is the same for root (which may write anything)."""
    return not loaded.mode & 0o222
