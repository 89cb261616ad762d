"""Legacy `Outcome` → RFD 058 envelope: SPEC §2's mapping table, one test per row.

Expected envelopes are written as the exact JSON the conversion emits (key
order included), as `jp-migrate convert --compact` prints them.
"""

from __future__ import annotations

import json

import pytest

from jp_migrate.contract.parse import dump, parse_outcome
from jp_migrate.contract.schemas import validator
from jp_migrate.convert.upgrade import answer_schema, outcome_to_envelope


def convert(outcome_json: str) -> str:
    envelope = dump(outcome_to_envelope(parse_outcome(outcome_json)))
    validator("envelope").validate(envelope)
    return json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))


MAPPING: list[tuple[str, str, str]] = [
    (
        "success {content}",
        '{"type":"success","content":"Check succeeded. ✓"}',
        '{"content":[{"type":"text","text":"Check succeeded. ✓"}]}',
    ),
    (
        "error {message, trace, transient=true}",
        '{"type":"error","message":"File not found","trace":["io error"],"transient":true}',
        ('{"content":[{"type":"text","text":"File not found"}],"isError":true,'
        '"_meta":{"computer.jp/error":{"transient":true,"trace":["io error"]}}}'),
    ),
    (
        "error {message, trace, transient=false}",
        '{"type":"error","message":"Refusing","trace":[],"transient":false}',
        ('{"content":[{"type":"text","text":"Refusing"}],"isError":true,'
        '"_meta":{"computer.jp/error":{"transient":false,"trace":[]}}}'),
    ),
    (
        "needs_input with pre_amble: a leading text block",
        ('{"type":"needs_input","question":{"id":"apply","text":"Apply?","pre_amble":"the diff",'
        '"answer_type":"Boolean","default":true}}'),
        ('{"content":[{"type":"text","text":"the diff"},{"type":"question","question":'
        '{"id":"apply","text":"Apply?","schema":{"type":"boolean"},"default":true}}]}'),
    ),
    (
        "needs_input without pre_amble (missing), no default",
        '{"type":"needs_input","question":{"id":"msg","text":"Commit message?","answer_type":"Text"}}',
        '{"content":[{"type":"question","question":{"id":"msg","text":"Commit message?","schema":{"type":"string"}}}]}',
    ),
    (
        "needs_input with pre_amble null and default null: neither is written",
        '{"type":"needs_input","question":{"id":"msg","text":"?","pre_amble":null,"answer_type":"Text","default":null}}',
        '{"content":[{"type":"question","question":{"id":"msg","text":"?","schema":{"type":"string"}}}]}',
    ),
    (
        "needs_input with an empty pre_amble: still a leading text block",
        '{"type":"needs_input","question":{"id":"q","text":"?","pre_amble":"","answer_type":"Text"}}',
        '{"content":[{"type":"text","text":""},{"type":"question","question":{"id":"q","text":"?","schema":{"type":"string"}}}]}',
    ),
    (
        "Select: string enum, default kept",
        ('{"type":"needs_input","question":{"id":"b","text":"Branch?","answer_type":{"Select":{"options":["main","dev"]}},'
        '"default":"main"}}'),
        ('{"content":[{"type":"question","question":{"id":"b","text":"Branch?",'
        '"schema":{"type":"string","enum":["main","dev"]},"default":"main"}}]}'),
    ),
    (
        "unknown keys are ignored, not carried over",
        '{"type":"success","content":"x","version":2}',
        '{"content":[{"type":"text","text":"x"}]}',
    ),
]


@pytest.mark.parametrize(("row", "outcome", "envelope"), MAPPING, ids=[m[0] for m in MAPPING])
def test_mapping_table(row: str, outcome: str, envelope: str) -> None:
    assert convert(outcome) == envelope


@pytest.mark.parametrize(
    ("answer_type", "schema"),
    [
        ('"Boolean"', {"type": "boolean"}),
        ('"Text"', {"type": "string"}),
        ('{"Select": {"options": ["a", "b"]}}', {"type": "string", "enum": ["a", "b"]}),
        ('{"Select": {"options": []}}', {"type": "string", "enum": []}),
        ('{"Boolean": null}', {"type": "boolean"}),
        ('{"Text": null}', {"type": "string"}),
    ],
)
def test_answer_type_to_json_schema(answer_type: str, schema: dict[str, object]) -> None:
    outcome = parse_outcome(
        '{"type": "needs_input", "question": {"id": "q", "text": "?", "answer_type": ' + answer_type + "}}"
    )
    assert answer_schema(outcome.question.answer_type) == schema  # type: ignore[union-attr]
