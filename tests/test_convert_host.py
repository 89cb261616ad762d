"""How a host turns one tool run into the normalized outcome.

`legacy_outcome`: SPEC §1's result table, one test row per table row.
`blocks_outcome`: RFD 058's parsing rules (SPEC §2).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from jp_migrate.contract.normalized import NormalizedOutcome
from jp_migrate.contract.parse import dump
from jp_migrate.contract.schemas import validator
from jp_migrate.convert.host import CANCELLED_TEXT, ToolRun, blocks_outcome, legacy_outcome


def normalized(outcome: NormalizedOutcome) -> dict[str, Any]:
    doc = dump(outcome)
    validator("normalized-outcome").validate(doc)  # every host result fits the shipped schema
    return doc


def text_blocks(*texts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": t} for t in texts]


ERROR_TRANSIENT = '{"type": "error", "message": "Datei fehlt: ä.rs", "trace": ["io: nö", "second"], "transient": true}'
ERROR_PERMANENT = '{"type":"error","message":"Refusing","trace":["x"],"transient":false,"extra":1}\n'
NEEDS_INPUT = json.dumps(
    {
        "type": "needs_input",
        "question": {
            "id": "apply",
            "text": "Apply the patch?",
            "pre_amble": "```diff\n-a\n+b\n```",
            "answer_type": "Boolean",
            "default": True,
        },
    }
)

# (row of SPEC §1's table, run, expected: status, is_error, text, content, extra fields)
LEGACY_TABLE: list[tuple[str, ToolRun, dict[str, Any]]] = [
    (
        "success: Ok(content)",
        ToolRun("t", '{"type": "success", "content": "Check succeeded. ✓"}'),
        {"status": "completed", "is_error": False, "text": "Check succeeded. ✓", "content": text_blocks("Check succeeded. ✓")},
    ),
    (
        "error, transient: Err(compact JSON message+trace, key order, non-ASCII raw)",
        ToolRun("t", ERROR_TRANSIENT),
        {
            "status": "completed",
            "is_error": True,
            "transient": True,
            "trace": ["io: nö", "second"],
            "text": '{"message":"Datei fehlt: ä.rs","trace":["io: nö","second"]}',
            "content": text_blocks("Datei fehlt: ä.rs"),
        },
    ),
    (
        "error, not transient: Err(raw stdout, unchanged)",
        ToolRun("t", ERROR_PERMANENT),
        {
            "status": "completed",
            "is_error": True,
            "transient": False,
            "trace": ["x"],
            "text": ERROR_PERMANENT,
            "content": text_blocks("Refusing"),
        },
    ),
    (
        "needs_input: no result yet, the question (and its pre-amble) is what there is",
        ToolRun("t", NEEDS_INPUT),
        {
            "status": "needs_input",
            "is_error": False,
            "text": "```diff\n-a\n+b\n```",
            "content": text_blocks("```diff\n-a\n+b\n```"),
            "questions": [{"id": "apply", "text": "Apply the patch?", "schema": {"type": "boolean"}, "default": True}],
        },
    ),
    (
        "not an Outcome, exit 0: Ok(stdout)",
        ToolRun("t", "plain output\n"),
        {"status": "completed", "is_error": False, "text": "plain output\n", "content": text_blocks("plain output\n")},
    ),
    (
        "JSON missing a required field is not an Outcome, exit 0: Ok(stdout)",
        ToolRun("t", '{"type": "error", "message": "m", "trace": []}'),
        {
            "status": "completed",
            "is_error": False,
            "text": '{"type": "error", "message": "m", "trace": []}',
            "content": text_blocks('{"type": "error", "message": "m", "trace": []}'),
        },
    ),
    (
        "not an Outcome, exit != 0: Err(compact JSON message, stderr, stdout)",
        ToolRun("cargo_check", "partial ü", stderr="boom: ß\n", exit_code=101),
        {
            "status": "completed",
            "is_error": True,
            "text": '{"message":"Tool \'cargo_check\' execution failed.","stderr":"boom: ß\\n","stdout":"partial ü"}',
            "content": text_blocks("partial ü"),
            "exit_code": 101,
            "stderr": "boom: ß\n",
        },
    ),
    (
        "cancelled: Ok(fixed text)",
        ToolRun("t", '{"type": "success", "content": "ignored"}', cancelled=True),
        {
            "status": "cancelled",
            "is_error": False,
            "text": "Tool execution cancelled by user.",
            "content": text_blocks("Tool execution cancelled by user."),
        },
    ),
]


@pytest.mark.parametrize(("row", "run", "expected"), LEGACY_TABLE, ids=[r[0] for r in LEGACY_TABLE])
def test_legacy_host_result_table(row: str, run: ToolRun, expected: dict[str, Any]) -> None:
    got = normalized(legacy_outcome(run).outcome)
    defaults = {"transient": False, "trace": [], "questions": [], "exit_code": 0, "stderr": ""}
    assert {k: got[k] for k in {**defaults, **expected}} == {**defaults, **expected}


def test_cancelled_text_is_jps() -> None:
    assert CANCELLED_TEXT == "Tool execution cancelled by user."


def test_outcome_path_wins_over_exit_status() -> None:
    # SPEC §1: only "not an Outcome" looks at the exit status.
    got = legacy_outcome(ToolRun("t", '{"type": "success", "content": "ok"}', exit_code=3)).outcome
    assert (got.protocol, got.is_error, got.text) == ("outcome", False, "ok")


def test_protocols() -> None:
    assert legacy_outcome(ToolRun("t", '{"type":"success","content":""}')).outcome.protocol == "outcome"
    assert legacy_outcome(ToolRun("t", "x")).outcome.protocol == "raw"
    assert blocks_outcome(ToolRun("t", '{"content": []}')).outcome.protocol == "blocks"
    assert blocks_outcome(ToolRun("t", "x")).outcome.protocol == "raw"


# --- RFD 058 parsing rules (SPEC §2) --------------------------------------------------------


def blocks(stdout: str, **run: Any) -> tuple[dict[str, Any], list[str]]:
    result = blocks_outcome(ToolRun("t", stdout, **run))
    return normalized(result.outcome), result.warnings


def test_content_array_is_an_envelope() -> None:
    got, warnings = blocks('{"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}')
    assert (got["protocol"], got["text"], got["is_error"], warnings) == ("blocks", "a\n\nb", False, [])


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ('{"type": "text"}', "content[1].text"),
        ('{"type": "link", "uri": "x"}', "content[1].type"),
        ('"just a string"', "content[1]"),
        ('{"type": "resource", "resource": {"uri": "u"}}', "content[1].resource"),
    ],
)
def test_malformed_blocks_are_skipped_with_a_warning_never_raw(bad: str, why: str) -> None:
    stdout = '{"content": [{"type": "text", "text": "a"}, ' + bad + ', {"type": "text", "text": "c"}]}'
    got, warnings = blocks(stdout)
    assert got["protocol"] == "blocks"
    assert got["content"] == text_blocks("a", "c")
    assert got["text"] == "a\n\nc"
    assert len(warnings) == 1 and warnings[0].startswith(why)


@pytest.mark.parametrize(
    "stdout",
    [
        "plain text",
        '{"type": "success", "content": "legacy Outcome"}',
        '{"content": "not an array"}',
        '[{"type": "text", "text": "a list, not an object"}]',
        '{"content": [NaN]}',
        "",
    ],
)
def test_anything_else_is_raw_one_text_block(stdout: str) -> None:
    got, warnings = blocks(stdout)
    assert (got["protocol"], got["content"], got["text"], warnings) == ("raw", text_blocks(stdout), stdout, [])


def test_raw_with_failing_exit_is_the_legacy_failure_envelope() -> None:
    got, _ = blocks("out", stderr="err", exit_code=2)
    assert got["is_error"] is True
    assert got["text"] == '{"message":"Tool \'t\' execution failed.","stderr":"err","stdout":"out"}'


def test_is_error_defaults_to_false() -> None:
    got, _ = blocks('{"content": [{"type": "text", "text": "x"}]}')
    assert got["is_error"] is False


def test_error_without_meta_is_not_transient_and_has_no_trace() -> None:
    got, _ = blocks('{"content": [{"type": "text", "text": "bad"}], "isError": true}')
    assert (got["is_error"], got["transient"], got["trace"]) == (True, False, [])


def test_error_meta_is_read() -> None:
    got, _ = blocks(
        '{"content": [{"type": "text", "text": "bad"}], "isError": true,'
        ' "_meta": {"computer.jp/error": {"transient": true, "trace": ["c1"]}}}'
    )
    assert (got["transient"], got["trace"], got["text"]) == (True, ["c1"], "bad")


def test_missing_status_is_stopped() -> None:
    from jp_migrate.contract.parse import parse_envelope

    assert parse_envelope('{"content": []}').status == "stopped"
    assert parse_envelope('{"content": [], "_meta": {}}').status == "stopped"
    assert parse_envelope('{"content": [], "_meta": {"computer.jp/status": "waiting"}}').status == "waiting"


def test_question_blocks_become_questions() -> None:
    got, _ = blocks(
        '{"content": [{"type": "text", "text": "pre"}, {"type": "question", "question":'
        ' {"id": "q", "text": "Sure?", "schema": {"type": "boolean"}, "default": false}}]}'
    )
    assert got["status"] == "needs_input"
    assert got["content"] == text_blocks("pre")
    assert got["questions"] == [{"id": "q", "text": "Sure?", "schema": {"type": "boolean"}, "default": False}]


def test_broken_envelope_field_is_dropped_with_a_warning_content_kept() -> None:
    got, warnings = blocks('{"content": [{"type": "text", "text": "a"}], "isError": "yes"}')
    assert (got["protocol"], got["text"], got["is_error"]) == ("blocks", "a", False)
    assert len(warnings) == 1 and "isError" in warnings[0]
