"""The conversion core's invariants (issue 2 acceptance), as hypothesis properties.

(a) rendering the blocks made from a legacy stored string gives the string back;
(b) downgrade after upgrade is the identity on legacy `tool_call_response` events;
(c) an already migrated event passes through unchanged (no double wrap);
(d) every valid `Outcome` converts to an envelope that fits the shipped schema
    and means the same under SPEC §5 (or differs only in an expected way).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from contract_support import b64, is_plain, legacy_events, migrated_events, outcome_docs, texts
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from jp_migrate.contract.parse import dump, parse_outcome
from jp_migrate.contract.schemas import validator
from jp_migrate.convert.compare import ERROR_TEXT_IS_MESSAGE, TRANSIENT_ERROR_IN_META, compare
from jp_migrate.convert.events import (
    decode_blocks,
    downgrade_response,
    stored_payload_text,
    upgrade_response,
)
from jp_migrate.convert.host import ToolRun, blocks_outcome, legacy_outcome
from jp_migrate.convert.render import render
from jp_migrate.convert.store_rules import upgrade_events
from jp_migrate.convert.upgrade import outcome_to_envelope

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any text at all: hypothesis' full unicode, longer than the shared `texts`.
any_text = st.text(max_size=200)


def legacy(content: str, is_error: bool = False) -> dict[str, Any]:
    return {"timestamp": "2026-01-01 00:00:00", "type": "tool_call_response", "id": "c1", "content": content, "is_error": is_error}


def rendered_after_upgrade(stored: str) -> str:
    upgrade = upgrade_response(legacy(stored))
    assert upgrade is not None
    blocks, _ = decode_blocks(upgrade.event["content"])
    assert stored_payload_text(upgrade.event) == render(blocks)
    return render(blocks)


# (a) -----------------------------------------------------------------------------------------


@SETTINGS
@given(any_text)
def test_render_of_upgraded_standard_base64_is_the_text(s: str) -> None:
    assert rendered_after_upgrade(b64(s)) == s


@SETTINGS
@given(any_text)
def test_render_of_upgraded_plain_text_is_the_text(s: str) -> None:
    assume(is_plain(s))  # a plain store cannot hold a string that itself reads as base64
    assert rendered_after_upgrade(s) == s


def test_plain_text_that_reads_as_base64_is_decoded() -> None:
    # The reason for the `assume` above: JP's reader would decode it too (SPEC §3).
    assert rendered_after_upgrade("b2s=") == "ok"


# (b) -----------------------------------------------------------------------------------------


@SETTINGS
@given(legacy_events())
def test_downgrade_after_upgrade_is_the_identity(event: dict[str, Any]) -> None:
    original = copy.deepcopy(event)
    upgrade = upgrade_response(event)
    assert upgrade is not None
    back = downgrade_response(upgrade.event)
    assert back == original
    # byte for byte as JP writes it: same keys, same order
    assert json.dumps(back, ensure_ascii=False, indent=2) == json.dumps(original, ensure_ascii=False, indent=2)
    assert event == original  # the input was not touched


@SETTINGS
@given(legacy_events())
def test_upgrade_changes_only_content(event: dict[str, Any]) -> None:
    upgrade = upgrade_response(event)
    assert upgrade is not None
    assert list(upgrade.event) == list(event)
    assert {k: v for k, v in upgrade.event.items() if k != "content"} == {k: v for k, v in event.items() if k != "content"}
    validator("tool-call-response-legacy").validate(event)
    validator("tool-call-response-migrated").validate(upgrade.event)


# (c) -----------------------------------------------------------------------------------------


@SETTINGS
@given(st.one_of(migrated_events(), legacy_events().map(lambda e: upgrade_response(e).event)))  # type: ignore[union-attr]
def test_migrated_events_pass_through_unchanged(event: dict[str, Any]) -> None:
    original = copy.deepcopy(event)
    assert upgrade_response(event) is None
    result = upgrade_events([{"type": "turn_start"}, event])
    assert result.events == [{"type": "turn_start"}, original]
    assert result.upgrades == {}
    assert event == original


@SETTINGS
@given(st.lists(legacy_events(), max_size=4))
def test_upgrading_twice_is_upgrading_once(events: list[dict[str, Any]]) -> None:
    once = upgrade_events(events).events
    assert upgrade_events(once).events == once


# (d) -----------------------------------------------------------------------------------------


@SETTINGS
@given(outcome_docs)
def test_any_outcome_converts_to_a_valid_envelope_with_the_same_meaning(doc: dict[str, Any]) -> None:
    stdout = json.dumps(doc, ensure_ascii=False)
    envelope = dump(outcome_to_envelope(parse_outcome(stdout)))
    validator("envelope").validate(envelope)

    control = legacy_outcome(ToolRun("tool", stdout)).outcome
    candidate = blocks_outcome(ToolRun("tool", json.dumps(envelope, ensure_ascii=False))).outcome
    result = compare(control, candidate)
    if doc["type"] == "error":
        name = TRANSIENT_ERROR_IN_META if doc["transient"] else ERROR_TEXT_IS_MESSAGE
        assert (result.verdict, result.differences) == ("expected", (name,))
    else:
        assert (result.verdict, result.differences) == ("match", ())


@SETTINGS
@given(texts)
def test_a_content_array_on_stdout_is_an_expected_difference_or_a_match(s: str) -> None:
    stdout = json.dumps({"content": [{"type": "text", "text": s}]})
    result = compare(legacy_outcome(ToolRun("t", stdout)).outcome, blocks_outcome(ToolRun("t", stdout)).outcome)
    assert result.verdict == "expected"


# Whatever encoding is asked for, what JP would read back is the text (SPEC §3). ----------------


@SETTINGS
@given(st.one_of(any_text.map(b64), any_text), st.sampled_from(["auto", "base64", "plain"]), st.sampled_from(["auto", "base64", "plain"]))
def test_any_encoding_reads_back_as_the_same_text(stored: str, up: str, down: str) -> None:
    text = stored_payload_text(legacy(stored))
    upgrade = upgrade_response(legacy(stored), encoding=up)  # type: ignore[arg-type]
    assert upgrade is not None
    assert stored_payload_text(upgrade.event) == text
    assert stored_payload_text(downgrade_response(upgrade.event, encoding=down)) == text  # type: ignore[arg-type]


def test_plain_is_not_used_for_text_that_would_read_as_base64() -> None:
    upgrade = upgrade_response(legacy(b64("b2s=")), encoding="plain")
    assert upgrade is not None and upgrade.target == "base64"
    assert upgrade.event["content"] == [{"type": "text", "text": b64("b2s=")}]
