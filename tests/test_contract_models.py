"""The contract models behave as JP's serde types do (SPEC §1) and keep what RFD 058 blocks carry (SPEC §2)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from contract_support import block_docs, envelope_docs, legacy_events, migrated_events, mutated
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jp_migrate.contract import (
    OutcomeError,
    OutcomeNeedsInput,
    OutcomeSuccess,
    answer_kind,
    dump,
    parse_block,
    parse_envelope,
    parse_legacy_response,
    parse_migrated_response,
    parse_outcome,
    try_outcome,
)
from jp_migrate.errors import ContractError


@pytest.mark.parametrize(
    ("stdout", "kind"),
    [
        ('{"type": "success", "content": ""}', OutcomeSuccess),
        ('  {"type": "success", "content": "x", "unknown": {"deep": [1]}}\n', OutcomeSuccess),
        ('{"type": "error", "message": "m", "trace": [], "transient": false}', OutcomeError),
        (
            '{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": "Text"}}',
            OutcomeNeedsInput,
        ),
        (
            '{"question": {"id": "q", "text": "t", "answer_type": "Text"}, "type": "needs_input"}',
            OutcomeNeedsInput,
        ),
    ],
)
def test_an_outcome_on_stdout_is_one(stdout: str, kind: type) -> None:
    assert isinstance(try_outcome(stdout), kind)


@pytest.mark.parametrize(
    "stdout",
    [
        "",
        "Check succeeded.",
        '{"type": "success"}',
        '{"type": "error", "message": "m", "trace": []}',
        '{"type": "error", "message": "m", "transient": true}',
        '{"type": "success", "content": null}',
        '{"type": "needs_input", "question": {"id": "q", "text": "t"}}',
        '{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": {"Select": {}}}}',
        '[{"type": "success", "content": "x"}]',
        '{"type": "success", "content": "x"} trailing',
        '{"content": [{"type": "text", "text": "an envelope is not an Outcome"}]}',
    ],
)
def test_anything_else_is_not_an_outcome(stdout: str) -> None:
    assert try_outcome(stdout) is None


@pytest.mark.parametrize(
    "extra",
    ["", ', "pre_amble": null', ', "default": null', ', "pre_amble": null, "default": null'],
)
def test_pre_amble_and_default_may_be_missing_or_null(extra: str) -> None:
    outcome = parse_outcome(
        '{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": "Text"'
        + extra
        + "}}"
    )
    assert isinstance(outcome, OutcomeNeedsInput)
    assert (outcome.question.pre_amble, outcome.question.default) == (None, None)


@pytest.mark.parametrize("default", ["true", '"main"', "0", "[1, 2]", '{"a": null}'])
def test_default_is_any_json_value(default: str) -> None:
    outcome = parse_outcome(
        '{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": "Text", "default": '
        + default
        + "}}"
    )
    assert isinstance(outcome, OutcomeNeedsInput)
    assert outcome.question.default == json.loads(default)


@pytest.mark.parametrize(
    ("answer_type", "kind"),
    [
        ('"Boolean"', "Boolean"),
        ('"Text"', "Text"),
        ('{"Boolean": null}', "Boolean"),
        ('{"Text": null}', "Text"),
        ('{"Select": {"options": ["a"]}}', "Select"),
        ('{"Select": {"options": [], "ignored": 1}}', "Select"),
    ],
)
def test_answer_type_is_externally_tagged(answer_type: str, kind: str) -> None:
    outcome = parse_outcome(
        '{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": '
        + answer_type
        + "}}"
    )
    assert isinstance(outcome, OutcomeNeedsInput)
    assert answer_kind(outcome.question.answer_type) == kind


def test_unknown_outcome_keys_are_dropped() -> None:
    assert dump(parse_outcome('{"type": "success", "content": "x", "v": 2}')) == {
        "type": "success",
        "content": "x",
    }  # type: ignore[arg-type]


BLOCKS: list[dict[str, Any]] = [
    {"type": "text", "text": "x", "annotations": {"audience": ["user"]}, "_meta": {"k": 1}},
    {
        "type": "resource",
        "resource": {
            "uri": "file:///a.py",
            "mimeType": "text/x-python",
            "text": "x",
            "name": "a.py",
        },
        "formatted": "F",
    },
    {
        "type": "resource",
        "resource": {"uri": "u", "blob": "AA==", "annotations": {"priority": 0.5}, "future": True},
    },
    {"type": "question", "question": {"id": "q", "text": "t", "schema": {"type": "boolean"}}},
    {
        "type": "question",
        "question": {"id": "q", "text": "t", "schema": {"type": "boolean"}, "default": None},
    },
    {"type": "image", "data": "AA==", "mimeType": "image/png"},
]


@pytest.mark.parametrize("block", BLOCKS)
def test_blocks_round_trip_exactly_unknown_keys_kept(block: dict[str, Any]) -> None:
    assert dump(parse_block(block)) == block  # type: ignore[arg-type]


def test_envelope_defaults() -> None:
    envelope = parse_envelope('{"content": []}')
    assert (
        envelope.isError,
        envelope.status,
        envelope.error_meta.transient,
        envelope.error_meta.trace,
    ) == (False, "stopped", False, [])
    assert dump(envelope) == {"content": []}


def test_envelope_meta_is_read_by_its_json_name_only() -> None:
    envelope = parse_envelope('{"content": [], "meta": {"computer.jp/status": "waiting"}}')
    assert envelope.status == "stopped"  # `meta` is an unknown key, kept as it was
    assert dump(envelope) == {"content": [], "meta": {"computer.jp/status": "waiting"}}


ROUND_TRIP = {
    "content block": (parse_block, block_docs),
    "envelope": (parse_envelope, envelope_docs),
    "migrated response": (parse_migrated_response, migrated_events()),
    "legacy response": (parse_legacy_response, legacy_events()),
}


@pytest.mark.parametrize("kind", sorted(ROUND_TRIP))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_open_models_give_back_exactly_what_they_read(kind: str, data: st.DataObject) -> None:
    """Whatever an open model accepts (unknown keys included) dumps back to the same JSON."""
    parse, valid = ROUND_TRIP[kind]
    doc = data.draw(st.one_of(valid, mutated(valid)))
    try:
        model = parse(doc)
    except ContractError:
        return
    assert dump(model) == doc


def test_a_field_given_under_its_alias_and_its_python_name_both_round_trip() -> None:
    # Hypothesis found it: `error` is an unknown key kept as an extra, and
    # `computer.jp/error` (the field's own name in JSON) was written too, as null.
    doc = {"content": [], "_meta": {"computer.jp/error": None, "error": None}}
    assert dump(parse_envelope(doc)) == doc
    unknown_only = {"content": [], "_meta": {"error": None}}
    assert dump(parse_envelope(unknown_only)) == unknown_only
