"""What one conversation directory holds, from a single listing (one syscall, no stat per file).

Decides whether the directory can be migrated at all: events.json present and
a regular file (not a symlink), metadata.json present, no stray JP temporary,
and not the older messages.json layout (SPEC §3 "Older layout").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from jp_migrate.files.write import TEMP_SUFFIX
from jp_migrate.store.discover import EVENTS, LEGACY_MESSAGES, METADATA, Conversation

JP_TEMP = f"{EVENTS}.tmp"  # JP's own atomic-write temporary (`<file>.tmp`, SPEC §3)
OUR_TEMP = f".{EVENTS}{TEMP_SUFFIX}"
METADATA_ONLY = "metadata.json only, no events.json: skipped, as jp skips it; left untouched"


class Refused(Exception):
    """The conversation is left untouched for a reason that is not its JSON (one line);
    with status "unchanged", a note (nothing is wrong)."""

    def __init__(
        self, message: str, status: Literal["error", "skipped", "unchanged"] = "error"
    ) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Layout:
    leftover: bool  # our own temporary from a killed run is there


def inspect(conversation: Conversation) -> Layout:
    try:
        with os.scandir(conversation.directory) as listing:
            entries = {e.name: e for e in listing}
    except FileNotFoundError:
        raise Refused("conversation directory is gone") from None
    events = entries.get(EVENTS)
    if events is None:
        if LEGACY_MESSAGES in entries:
            raise Refused(
                "unsupported layout: messages.json (JP before December 2025, dropped without a migration); "
                "left untouched",
                "skipped",
            )
        if METADATA in entries:  # JP logs a warning and skips such a directory (SPEC §3)
            raise Refused(METADATA_ONLY, "unchanged")
        raise Refused("not a conversation: no events.json")
    if events.is_symlink():
        raise Refused("events.json is a symlink: not followed")
    if not events.is_file(follow_symlinks=False):
        raise Refused("events.json is not a regular file")
    if METADATA not in entries:
        raise Refused("missing metadata.json: not a complete conversation; left untouched")
    if JP_TEMP in entries:
        raise Refused(
            f"stray {JP_TEMP} (an interrupted jp write?): inspect and remove it, then rerun; left untouched"
        )
    return Layout(leftover=OUR_TEMP in entries)
