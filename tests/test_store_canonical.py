"""Minimal-change rewriting (jp_migrate/store/canonical.py): splicing gives the bytes a full dump would.

Migrated events are put into a canonical file where the old ones sat, without
dumping the file again; the result must be exactly what dumping it would give.
"""

from __future__ import annotations

import json
from hashlib import sha256
from typing import Any

from contract_support import legacy_events
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jp_migrate.convert.store_rules import upgrade_events
from jp_migrate.store import plan
from jp_migrate.store.canonical import pretty, rewrite, rewrite_keeping

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
encodings = st.sampled_from(["auto", "base64", "plain"])


@SETTINGS
@given(st.lists(legacy_events(), min_size=1, max_size=4), encodings)
def test_a_spliced_canonical_file_is_the_pretty_dump_of_the_migrated_events(
    events: list[dict[str, Any]], encoding: Any
) -> None:
    upgrade = upgrade_events(events, encoding=encoding)
    replaced = {i: u.event for i, u in upgrade.upgrades.items()}
    raw = pretty(events)
    assert rewrite(raw, events, replaced) == pretty(upgrade.events)
    data, kept = rewrite_keeping(raw, events, replaced)
    # the manifest's two hashes share the state after these bytes: they must be the same
    assert data == pretty(upgrade.events) and data[:kept] == raw[:kept]
    old_hash, new_hash = plan.hashes(raw, data, kept)
    assert (old_hash, new_hash) == (sha256(raw).hexdigest(), sha256(data).hexdigest())


@SETTINGS
@given(
    st.lists(legacy_events(), min_size=1, max_size=4),
    st.sampled_from(["\t", "    ", " "]),
    st.sampled_from(["\n", "\r\n"]),
)
def test_a_hand_edited_file_keeps_its_indentation_and_line_endings(
    events: list[dict[str, Any]], indent: str, newline: str
) -> None:
    """Not JP's format (tabs, four spaces, CRLF): a migrated event is written in the file's style."""
    text = json.dumps(events, indent=indent, ensure_ascii=False).replace("\n", newline) + newline
    upgrade = upgrade_events(events, encoding="auto")
    replaced = {i: u.event for i, u in upgrade.upgrades.items()}
    expected = json.dumps(upgrade.events, indent=indent, ensure_ascii=False)
    raw = text.encode("utf-8")
    assert rewrite(raw, events, replaced) == (expected.replace("\n", newline) + newline).encode()
    assert rewrite_keeping(raw, events, replaced)[1] in {0, len(raw)}  # nothing shared assumed


RESPONSE = {"type": "tool_call_response", "id": "a", "content": "eA==", "is_error": False}


def test_a_copy_of_the_response_nested_in_another_event_is_not_the_one_rewritten() -> None:
    """Top-level events at column 0: a nested copy sits at JP's 2-space indent, and is left."""
    nested = json.dumps(RESPONSE, indent=2).replace("\n", "\n  ")
    flat = json.dumps(RESPONSE, indent=2).replace("\n  ", "\n")
    raw = f'[\n{{\n"type": "fork",\n"events": [\n  {nested}\n]\n}},\n{flat}\n]\n'.encode()
    events = json.loads(raw)
    upgrade = upgrade_events(events, encoding="auto")
    assert list(upgrade.upgrades) == [1]
    out = json.loads(rewrite(raw, events, {1: upgrade.upgrades[1].event}))
    assert out[0] == events[0]  # the copy inside the fork is untouched
    assert out[1]["content"] == [{"type": "text", "text": "eA=="}]
