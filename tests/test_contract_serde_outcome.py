"""stdout read as JP reads an `Outcome`: `serde_json::from_str::<Outcome>`, a derived,
internally tagged enum. serde also reads one from a sequence (the tag, then the variant's
fields in order) and refuses an object that repeats one of its fields; the standard
library would keep the last. The plain readings (no pydantic) must say the same."""

from __future__ import annotations

import json

import pytest

from jp_migrate.contract.parse import parse_outcome, try_outcome
from jp_migrate.convert.host import ToolRun, is_outcome_candidate, legacy_outcome, plain_legacy
from jp_migrate.errors import ContractError

QUESTION = '{"id": "q", "text": "Go?", "answer_type": "Boolean"}'

# stdout → what JP makes of it: ("ok", text), ("err", text), ("ask", question id) or "raw"
CASES = [
    ('["success", "done"]', ("ok", "done")),
    ('["success", "a", "b"]', "raw"),  # invalid length
    ('["success"]', "raw"),
    ('["error", "boom", ["at x"], false]', ("err", '["error", "boom", ["at x"], false]')),
    ('["error", "boom", ["at x"], true]', ("err", '{"message":"boom","trace":["at x"]}')),
    ('["error", "boom"]', "raw"),
    (f'["needs_input", {QUESTION}]', ("ask", "q")),
    ('["done", "success"]', "raw"),  # the tag comes first
    ('["success", 5]', "raw"),  # content is a string
    ('{"type": "success", "content": "a", "content": "b"}', "raw"),  # duplicate field
    ('{"type": "success", "type": "success", "content": "a"}', "raw"),  # duplicate tag
    ('{"type": "success", "content": "a", "\\u0063ontent": "b"}', "raw"),  # spelled with an escape
    ('{"type": "success", "content": "a", "x": 1, "x": 2}', ("ok", "a")),  # unknown keys: ignored
    (
        '{"type": "error", "message": "m", "trace": [], "transient": false, "message": "n"}',
        "raw",
    ),
    (
        (
            '{"type": "needs_input", "question": {"id": "q", "id": "r", "text": "t", '
            '"answer_type": "Text"}}'
        ),
        "raw",
    ),
    (
        (
            '{"type": "needs_input", "question": {"id": "q", "text": "t", '
            '"answer_type": {"Boolean": null, "Boolean": null}}}'
        ),
        "raw",
    ),
    (
        (
            '{"type": "needs_input", "question": {"id": "q", "text": "t", '
            '"answer_type": {"Select": {"options": ["a"], "options": ["b"]}}}}'
        ),
        "raw",
    ),
    (
        (
            '{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": "Text", '
            '"default": {"a": 1, "a": 2}}}'
        ),
        ("ask", "q"),
    ),  # a serde_json::Value keeps the last
    ('{"content": "x", "content": "y"}', "raw"),  # no tag: never an Outcome
]


def _reading(stdout: str) -> object:
    outcome = legacy_outcome(ToolRun("t", stdout)).outcome
    if outcome.protocol == "raw":
        return "raw"
    if outcome.questions:
        return ("ask", outcome.questions[0].id)
    return ("err" if outcome.is_error else "ok", outcome.text)


@pytest.mark.parametrize(("stdout", "expected"), CASES)
def test_stdout_is_read_as_serde_reads_an_outcome(stdout: str, expected: object) -> None:
    assert _reading(stdout) == expected
    assert (try_outcome(stdout) is not None) == (expected != "raw")
    run = ToolRun("t", stdout)
    if expected != "raw":
        assert is_outcome_candidate(run)  # the cheap pre-check never rules out an Outcome
    plain = plain_legacy(run)
    if plain is not None:  # the plain reading, where it answers, is the models'
        assert plain == json.loads(legacy_outcome(run).outcome.model_dump_json(by_alias=True))


def test_a_repeated_field_is_named() -> None:
    with pytest.raises(ContractError) as err:
        parse_outcome('{"type": "success", "content": "a", "content": "b"}', source="out.json")
    assert str(err.value) == "out.json: content: duplicate field `content`"
    with pytest.raises(ContractError) as err:
        parse_outcome('["success", "a", "b"]')
    assert "invalid length 2, expected 1 after the tag 'success'" in str(err.value)
