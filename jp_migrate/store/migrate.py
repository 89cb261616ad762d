"""Migrate a conversation: look (its directory, its file) → plan (pure, `store.plan`).

`--check` and `--dry-run` stop after the plan; a real run hands it to the commit
step. The lock, the error lines and the commit are `store.pipeline`'s, the same
for every kind of run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from jp_migrate.files.write import temp_path, unlink
from jp_migrate.store.discover import Conversation
from jp_migrate.store.layout import OUR_TEMP, Refused, inspect
from jp_migrate.store.load import EventsFile, read_events
from jp_migrate.store.pipeline import commit_many
from jp_migrate.store.plan import Plan, check_blobs, plan
from jp_migrate.store.settings import Mode, Result, Settings


@dataclass(frozen=True)
class Migrate:
    """Migrate one conversation's legacy responses (a `pipeline.Task`)."""

    conversation: Conversation

    def look(self, settings: Settings, locked: bool) -> tuple[EventsFile, Plan]:
        conversation = self.conversation
        leftover = inspect(conversation).leftover
        note = ""
        if locked and leftover:
            # Ours, from a killed run; the target itself is intact (the rename is atomic).
            # A link planted there is refused (create_new), not removed.
            if os.path.islink(temp_path(conversation.events)):
                raise Refused(f"{OUR_TEMP}: a symlink where jp-migrate writes: not followed")
            unlink(temp_path(conversation.events))
            note = f"removed {OUR_TEMP} left by an interrupted run"
        loaded = read_events(conversation.events, source=conversation.shown)
        return loaded, plan(conversation, loaded, settings, note)


def migrate_many(conversations: Iterable[Conversation], settings: Settings) -> Iterator[Result]:
    """A Result per conversation, in the order their work ends (a change once committed)."""
    return commit_many((Migrate(c) for c in conversations), settings)


__all__ = ["Migrate", "Mode", "Result", "Settings", "check_blobs", "migrate_many"]
