"""Semantic comparison of a control (before) and a candidate (after) run, SPEC §5.

Match, the three expected differences of SPEC §2 by name, and mismatches that
name the fields that differ.
"""

from __future__ import annotations

from typing import Any

import pytest

from jp_migrate.contract.normalized import NormalizedOutcome
from jp_migrate.convert.compare import (
    CONTENT_ARRAY_PARSED,
    ERROR_TEXT_IS_MESSAGE,
    EXPECTED_DIFFERENCES,
    FAILURE_TEXT_IN_CONTENT,
    PRE_AMBLE_IN_FORM,
    TRANSIENT_ERROR_IN_META,
    Comparison,
    compare,
    compare_asked,
    with_asked,
)
from jp_migrate.convert.host import ToolRun, blocks_outcome, legacy_outcome


def before(stdout: str, **run: Any) -> NormalizedOutcome:
    return legacy_outcome(ToolRun("t", stdout, **run)).outcome


def after(stdout: str, **run: Any) -> NormalizedOutcome:
    return blocks_outcome(ToolRun("t", stdout, **run)).outcome


def norm(**fields: Any) -> NormalizedOutcome:
    base: dict[str, Any] = {
        "protocol": "outcome", "status": "completed", "is_error": False, "transient": False, "trace": [],
        "content": [{"type": "text", "text": "a"}], "questions": [], "text": "a", "exit_code": 0, "stderr": "",
    }
    return NormalizedOutcome.model_validate({**base, **fields})


QUESTION = {"id": "q", "text": "Sure?", "schema": {"type": "boolean"}, "default": True}

ROWS: list[tuple[str, NormalizedOutcome, NormalizedOutcome, str, tuple[str, ...]]] = [
    (
        "success, same text",
        before('{"type": "success", "content": "ok ✓"}'),
        after('{"content": [{"type": "text", "text": "ok ✓"}]}'),
        "match",
        (),
    ),
    (
        "raw output is the same on both sides",
        before("plain", exit_code=1, stderr="e"),
        after("plain", exit_code=1, stderr="e"),
        "match",
        (),
    ),
    (
        "needs_input with pre-amble and default",
        before('{"type": "needs_input", "question": {"id": "q", "text": "Sure?", "pre_amble": "p", "answer_type": "Boolean", "default": true}}'),
        after('{"content": [{"type": "text", "text": "p"}, {"type": "question", "question": {"id": "q", "text": "Sure?", "schema": {"type": "boolean"}, "default": true}}]}'),
        "match",
        (),
    ),
    (
        "non-transient error: text is the message instead of the raw Outcome",
        before('{"type": "error", "message": "nope", "trace": ["c"], "transient": false}'),
        after('{"content": [{"type": "text", "text": "nope"}], "isError": true, "_meta": {"computer.jp/error": {"transient": false, "trace": ["c"]}}}'),
        "expected",
        (ERROR_TEXT_IS_MESSAGE,),
    ),
    (
        "transient error: text is the message, trace and transient in _meta",
        before('{"type": "error", "message": "later", "trace": ["c"], "transient": true}'),
        after('{"content": [{"type": "text", "text": "later"}], "isError": true, "_meta": {"computer.jp/error": {"transient": true, "trace": ["c"]}}}'),
        "expected",
        (TRANSIENT_ERROR_IN_META,),
    ),
    (
        "stdout that is a JSON object with a content array was raw, is parsed now",
        before('{"content": [{"type": "text", "text": "x"}], "total": 1}'),
        after('{"content": [{"type": "text", "text": "x"}], "total": 1}'),
        "expected",
        (CONTENT_ARRAY_PARSED,),
    ),
    (
        "a content array parsed now, but the candidate printed another result",
        before('{"content": [{"type": "text", "text": "3 files deleted"}]}'),
        after('{"content": [{"type": "text", "text": "permission denied"}], "isError": true}'),
        "mismatch",
        ("is_error", "content"),
    ),
    (
        "a content array parsed now, the candidate's content differs",
        before('{"content": [{"type": "text", "text": "x"}], "total": 1}'),
        after('{"content": [{"type": "text", "text": "y"}]}'),
        "mismatch",
        ("content",),
    ),
    (
        "status differs",
        before('{"type": "success", "content": "Sure?"}'),
        after('{"content": [{"type": "question", "question": {"id": "q", "text": "Sure?", "schema": {}}}]}'),
        "mismatch",
        ("status", "questions", "content"),
    ),
    (
        "is_error differs",
        before('{"type": "success", "content": "x"}'),
        after('{"content": [{"type": "text", "text": "x"}], "isError": true}'),
        "mismatch",
        ("is_error",),
    ),
    (
        "question differs (default)",
        norm(status="needs_input", content=[], text="", questions=[QUESTION]),
        norm(status="needs_input", content=[], text="", questions=[{**QUESTION, "default": False}]),
        "mismatch",
        ("questions",),
    ),
    (
        "transient differs on an error",
        before('{"type": "error", "message": "m", "trace": [], "transient": true}'),
        after('{"content": [{"type": "text", "text": "m"}], "isError": true}'),
        "mismatch",
        ("transient",),
    ),
    (
        "trace differs on an error",
        before('{"type": "error", "message": "m", "trace": ["a"], "transient": false}'),
        after('{"content": [{"type": "text", "text": "m"}], "isError": true, "_meta": {"computer.jp/error": {"trace": ["b"]}}}'),
        "mismatch",
        ("trace",),
    ),
    (
        "content differs",
        before('{"type": "success", "content": "one"}'),
        after('{"content": [{"type": "text", "text": "two"}]}'),
        "mismatch",
        ("content",),
    ),
    (
        "only text differs, and not in an expected way",
        norm(text="a"),
        norm(protocol="blocks", text="b"),
        "mismatch",
        ("text",),
    ),
    (
        "raw stdout that is not a content array, parsed differently",
        norm(protocol="raw", content=[{"type": "text", "text": "{}"}], text="{}"),
        norm(protocol="blocks", content=[], text=""),
        "mismatch",
        ("content",),
    ),
]


@pytest.mark.parametrize(("row", "control", "candidate", "verdict", "differences"), ROWS, ids=[r[0] for r in ROWS])
def test_compare(row: str, control: NormalizedOutcome, candidate: NormalizedOutcome, verdict: str, differences: tuple[str, ...]) -> None:
    result = compare(control, candidate)
    assert (result.verdict, result.differences) == (verdict, differences)
    assert result.ok is (verdict != "mismatch")


def test_trace_and_transient_are_ignored_when_not_an_error() -> None:
    assert compare(norm(transient=True, trace=["x"]), norm()).verdict == "match"


def test_expected_differences_are_the_three_of_spec_section_2_and_the_adapters() -> None:
    spec = [ERROR_TEXT_IS_MESSAGE, TRANSIENT_ERROR_IN_META, CONTENT_ARRAY_PARSED]
    adapters = [FAILURE_TEXT_IN_CONTENT, PRE_AMBLE_IN_FORM]
    assert sorted(EXPECTED_DIFFERENCES) == sorted([*spec, *adapters])


ASKS = '{"content": [{"type": "question", "question": {"id": "ok", "text": "Sure?", "schema": {"type": "boolean"}}}]}'


def test_a_parsed_content_array_with_a_question_is_held_against_the_candidates_first_run() -> None:
    """The new host answers the question the raw text held: only its first run can equal the parse."""
    answered = after('{"content": [{"type": "text", "text": "done"}]}')
    result = compare(before(ASKS), answered, first=after(ASKS))
    assert (result.verdict, result.differences) == ("expected", (CONTENT_ARRAY_PARSED,))
    other = after(ASKS.replace("Sure?", "Really?"))
    result = compare(before(ASKS), answered, first=other)
    assert (result.verdict, result.differences) == ("mismatch", ("questions",))
    assert result.compared == (after(ASKS), other)


CONFIRM = '{"type": "needs_input", "question": {"id": "ok", "text": "Delete it?", "answer_type": "Boolean", "default": false}}'
DONE = '{"type": "success", "content": "kept"}'


def test_questions_asked_along_the_way_are_compared() -> None:
    """The last runs agree ("kept"); what was asked before them decides."""
    control = [before(CONFIRM), before(DONE)]
    asks = '{"content": [{"type": "question", "question": {"id": "ok", "text": "Delete it?", "schema": {"type": "boolean"}, "default": false}}]}'
    same = [after(asks), after('{"content": [{"type": "text", "text": "kept"}]}')]
    assert compare_asked(control, same) is None
    other = [after(asks.replace("Delete it?", "Wipe EVERYTHING?")), same[1]]
    assert compare_asked(control, other).differences == ("questions",)  # type: ignore[union-attr]
    never_asks = [same[1]]
    assert compare_asked(control, never_asks).differences == ("questions",)  # type: ignore[union-attr]
    # ... unless its answer was given up front: a legacy host never shows it then
    assert compare_asked(control, never_asks, given={"ok"}) is None
    assert compare_asked(never_asks, control, given={"ok"}) is None


PREVIEW = '{"type": "needs_input", "question": {"id": "ok", "text": "Delete it?", "pre_amble": "# notes", "answer_type": "Boolean", "default": false}}'


def _form(text: str, schema: dict[str, Any]) -> NormalizedOutcome:
    """A question round as the bridge reads an elicitation form (text: message, label)."""
    question = {"id": "ok", "text": text, "schema": schema, "default": False}
    return norm(protocol="mcp-input-required", status="needs_input", content=[], text="", questions=[question])


def test_a_pre_amble_asked_through_a_form_is_a_named_difference() -> None:
    """`adapt --mcp` asks a legacy question by elicitation: its pre-amble is the field's
    description (shown after the message); nothing else may differ."""
    control = [before(PREVIEW), before(DONE)]
    last = after('{"content": [{"type": "text", "text": "kept"}]}')
    described = _form("Delete it? # notes", {"type": "boolean", "description": "# notes"})
    asked = compare_asked(control, [described, last])
    assert asked == Comparison("expected", (PRE_AMBLE_IN_FORM,))
    assert compare_asked(control, [last], given=set()) is not None  # still asked by one side only
    for wrong in (
        _form("Delete it? # other", {"type": "boolean", "description": "# other"}),
        _form("Wipe it? # notes", {"type": "boolean", "description": "# notes"}),
        _form("Delete it? # notes", {"type": "string", "description": "# notes"}),
        _form("Delete it?", {"type": "boolean"}),
    ):
        assert compare_asked(control, [wrong, last]).verdict == "mismatch", wrong  # type: ignore[union-attr]


def test_a_case_verdict_keeps_the_worse_of_its_last_runs_and_its_rounds() -> None:
    named = Comparison("expected", (PRE_AMBLE_IN_FORM,))
    assert with_asked(Comparison("match"), None) == Comparison("match")
    assert with_asked(Comparison("match"), named) == named
    both = with_asked(Comparison("expected", (ERROR_TEXT_IS_MESSAGE,)), named)
    assert both == Comparison("expected", (ERROR_TEXT_IS_MESSAGE, PRE_AMBLE_IN_FORM))
    assert with_asked(Comparison("mismatch", ("content",)), named).verdict == "mismatch"
    assert with_asked(named, Comparison("mismatch", ("questions",))).differences == ("questions",)
