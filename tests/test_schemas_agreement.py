"""The pydantic models and the shipped JSON Schemas accept and reject the SAME documents.

For each (schema, model entry point) pair: random near-valid documents (hypothesis
mutations of valid ones), then explicit rows for the cases that matter most.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from contract_support import (
    block_docs,
    envelope_docs,
    legacy_events,
    migrated_events,
    mutated,
    normalized_docs,
    outcome_docs,
    report_docs,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jp_migrate.contract.parse import (
    parse_block,
    parse_envelope,
    parse_legacy_response,
    parse_migrated_response,
    parse_normalized,
    parse_outcome,
)
from jp_migrate.contract.report import Report
from jp_migrate.contract.schemas import validator
from jp_migrate.errors import ContractError


def parse_report(doc: Any) -> Report:
    if not isinstance(doc, dict):
        raise ContractError("expected a JSON object")
    from pydantic import ValidationError

    try:
        return Report.model_validate(doc, by_alias=True, by_name=False)
    except ValidationError as exc:
        raise ContractError(str(exc)) from None


PAIRS: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "outcome": (parse_outcome, outcome_docs),
    "content-block": (parse_block, block_docs),
    "envelope": (parse_envelope, envelope_docs),
    "tool-call-response-legacy": (parse_legacy_response, legacy_events()),
    "tool-call-response-migrated": (parse_migrated_response, migrated_events()),
    "normalized-outcome": (parse_normalized, normalized_docs),
    "report": (parse_report, report_docs),
}


def model_accepts(parse: Callable[[Any], Any], doc: Any) -> bool:
    try:
        parse(doc)
    except ContractError:
        return False
    return True


def schema_accepts(name: str, doc: Any) -> bool:
    return bool(validator(name).is_valid(doc))


def assert_agree(name: str, doc: Any) -> None:
    parse = PAIRS[name][0]
    model, schema = model_accepts(parse, doc), schema_accepts(name, doc)
    assert model == schema, f"{name}: model {'accepts' if model else 'rejects'}, schema {'accepts' if schema else 'rejects'}: {doc!r}"


@pytest.mark.parametrize("name", sorted(PAIRS))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_valid_documents_are_accepted_by_both(name: str, data: st.DataObject) -> None:
    doc = data.draw(PAIRS[name][1])
    assert model_accepts(PAIRS[name][0], doc), doc
    assert schema_accepts(name, doc), doc


@pytest.mark.parametrize("name", sorted(PAIRS))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_near_valid_documents_get_the_same_verdict(name: str, data: st.DataObject) -> None:
    assert_agree(name, data.draw(mutated(PAIRS[name][1])))


Q = {"id": "q", "text": "Apply?"}
BLOCK = {"type": "text", "text": "t"}
NORMALIZED = {
    "protocol": "raw", "status": "completed", "is_error": False, "transient": False, "trace": [],
    "content": [], "questions": [], "text": "", "exit_code": 0, "stderr": "",
}

# (schema, document, accepted) — each row is checked against BOTH the model and the schema.
ROWS: list[tuple[str, Any, bool]] = [
    # Outcome: required fields, optional-or-null, unknown keys ignored, external tagging (SPEC §1)
    ("outcome", {"type": "success", "content": "ok"}, True),
    ("outcome", {"type": "success", "content": "ok", "extra": [1]}, True),
    ("outcome", {"type": "success"}, False),
    ("outcome", {"type": "success", "content": None}, False),
    ("outcome", {"type": "error", "message": "m", "trace": [], "transient": True}, True),
    ("outcome", {"type": "error", "message": "m", "trace": []}, False),
    ("outcome", {"type": "error", "message": "m", "transient": False}, False),
    ("outcome", {"type": "error", "message": "m", "trace": [], "transient": 1}, False),
    ("outcome", {"type": "error", "message": "m", "trace": "t", "transient": False}, False),
    ("outcome", {"type": "Success", "content": "ok"}, False),
    ("outcome", {"content": "ok"}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": "Boolean"}}, True),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": "Text", "pre_amble": None, "default": None}}, True),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": "Text", "pre_amble": 3}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Select": {"options": ["a"]}}}}, True),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Select": {"options": ["a"], "x": 1}}}}, True),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Select": {}}}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Select": {"options": [1]}}}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Select": {"options": []}, "Text": None}}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Boolean": None}}}, True),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Boolean": 1}}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {"Boolean": None, "Text": None}}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": {}}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": "Select"}}, False),
    ("outcome", {"type": "needs_input", "question": {**Q, "answer_type": "boolean"}}, False),
    ("outcome", {"type": "needs_input", "question": {"id": "q", "answer_type": "Text"}}, False),
    # blocks (SPEC §2): resource carries exactly one of text/blob
    ("content-block", BLOCK, True),
    ("content-block", {"type": "text"}, False),
    ("content-block", {"type": "link", "uri": "u"}, False),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": "t"}}, True),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "blob": "YQ=="}, "formatted": "a"}, True),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": "t", "blob": None}}, True),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": "t", "blob": "YQ=="}}, False),
    ("content-block", {"type": "resource", "resource": {"uri": "u"}}, False),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": None, "blob": None}}, False),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": "t", "formatted": "f"}}, True),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": "t", "annotations": {"priority": 1}}}, True),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": "t", "annotations": {"priority": True}}}, False),
    ("content-block", {"type": "resource", "resource": {"uri": "u", "text": "t", "annotations": {"audience": ["bot"]}}}, False),
    ("content-block", {"type": "question", "question": {**Q, "schema": {"type": "boolean"}}}, True),
    ("content-block", {"type": "question", "question": {**Q, "schema": {"type": "boolean"}, "default": None}}, True),
    ("content-block", {"type": "question", "question": {**Q, "schema_": {"type": "boolean"}}}, False),
    ("content-block", {"type": "question", "question": {**Q, "schema": "boolean"}}, False),
    ("content-block", {"type": "image", "data": "YQ==", "mimeType": "image/png"}, True),
    ("content-block", {"type": "audio", "data": "YQ=="}, False),
    # envelope: isError bool, `_meta` by its JSON name only
    ("envelope", {"content": []}, True),
    ("envelope", {"content": [BLOCK], "isError": True, "_meta": {"computer.jp/error": {"transient": True, "trace": ["c"]}}}, True),
    ("envelope", {"content": [BLOCK], "_meta": None}, True),
    ("envelope", {"content": [BLOCK], "_meta": {"computer.jp/status": None, "computer.jp/error": None}}, True),
    ("envelope", {"content": [BLOCK], "_meta": {"computer.jp/status": "done"}}, False),
    ("envelope", {"content": [BLOCK], "meta": {"computer.jp/status": "done"}}, True),
    ("envelope", {"content": [BLOCK], "isError": None}, False),
    ("envelope", {"content": [BLOCK], "isError": 0}, False),
    ("envelope", {"content": [{"type": "text"}]}, False),
    ("envelope", {"content": "text"}, False),
    ("envelope", {"isError": False}, False),
    # stored events (SPEC §3)
    ("tool-call-response-legacy", {"type": "tool_call_response", "id": "i", "content": "b2s=", "is_error": False}, True),
    ("tool-call-response-legacy", {"timestamp": None, "type": "tool_call_response", "id": "i", "content": "", "is_error": True, "metadata": None}, True),
    ("tool-call-response-legacy", {"type": "tool_call_response", "id": "i", "content": [BLOCK], "is_error": False}, False),
    ("tool-call-response-legacy", {"type": "tool_call_request", "id": "i", "content": "", "is_error": False}, False),
    ("tool-call-response-legacy", {"type": "tool_call_response", "id": 1, "content": "", "is_error": False}, False),
    ("tool-call-response-legacy", {"type": "tool_call_response", "id": "i", "content": "", "is_error": False, "metadata": []}, False),
    ("tool-call-response-migrated", {"type": "tool_call_response", "id": "i", "content": [BLOCK], "is_error": False}, True),
    ("tool-call-response-migrated", {"type": "tool_call_response", "id": "i", "content": "b2s=", "is_error": False}, False),
    ("tool-call-response-migrated", {"type": "tool_call_response", "id": "i", "content": [{"type": "text"}], "is_error": False}, False),
    # normalized outcome (SPEC §5): closed, every field present
    ("normalized-outcome", NORMALIZED, True),
    ("normalized-outcome", {**NORMALIZED, "exit_code": None}, True),
    ("normalized-outcome", {**NORMALIZED, "exit_code": 1.0}, True),
    ("normalized-outcome", {**NORMALIZED, "exit_code": 1.5}, False),
    ("normalized-outcome", {**NORMALIZED, "exit_code": True}, False),
    ("normalized-outcome", {**NORMALIZED, "extra": 1}, False),
    ("normalized-outcome", {k: v for k, v in NORMALIZED.items() if k != "stderr"}, False),
    ("normalized-outcome", {**NORMALIZED, "questions": [{**Q, "schema": {}}]}, True),
    ("normalized-outcome", {**NORMALIZED, "questions": [{**Q, "schema": {}, "why": 1}]}, False),
    ("normalized-outcome", {**NORMALIZED, "status": "stopped"}, False),
    # report
    ("report", {"command": "check"}, True),
    ("report", {"command": "check", "totals": {"files": 2.0}}, True),
    ("report", {"command": "check", "totals": {"files": False}}, False),
    ("report", {"command": "check", "schema_version": "v2"}, False),
    ("report", {"command": "check", "store": [{"path": "p", "conversation": "c", "status": "gone"}]}, False),
    ("report", {"command": "check", "unknown": 1}, False),
]


@pytest.mark.parametrize(("name", "doc", "accepted"), ROWS)
def test_row(name: str, doc: Any, accepted: bool) -> None:
    assert model_accepts(PAIRS[name][0], doc) is accepted, "model"
    assert schema_accepts(name, doc) is accepted, "schema"
