"""Semantic comparison of two normalized outcomes (SPEC §5), Scientist-style.

The control is the run before migration, the candidate the run after. Equal
semantics and equal text is a match; the differences SPEC §2 lists as intended
are "expected", by name; anything else is a mismatch naming the fields.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from jp_migrate.contract.normalized import NormalizedOutcome, NormalizedQuestion
from jp_migrate.contract.parse import load_json
from jp_migrate.convert.host import ToolRun, blocks_outcome
from jp_migrate.convert.render import render
from jp_migrate.errors import ContractError

Verdict = Literal["match", "expected", "mismatch"]

# The intended differences of SPEC §2, by name.
ERROR_TEXT_IS_MESSAGE = "error-text-is-message"
TRANSIENT_ERROR_IN_META = "transient-error-in-meta"
CONTENT_ARRAY_PARSED = "content-array-parsed"
# Not in SPEC §2: what an adapter (`jp-migrate adapt`) makes of a tool that failed
# with raw output. The model reads the same text; only where it sits differs.
FAILURE_TEXT_IN_CONTENT = "failure-text-in-content"
# Not in SPEC §2: a question asked through MCP elicitation (`adapt --mcp`) has no
# content beside its message, so its pre-amble is the form field's description.
PRE_AMBLE_IN_FORM = "pre-amble-in-form"
EXPECTED_DIFFERENCES = {
    ERROR_TEXT_IS_MESSAGE: "a non-transient error's text is the message instead of the raw Outcome",
    TRANSIENT_ERROR_IN_META: "a transient error's text is the message; trace and transient are in _meta",
    CONTENT_ARRAY_PARSED: "stdout that is a JSON object with a content array was raw text and is parsed now",
    FAILURE_TEXT_IN_CONTENT: "a failed run's legacy failure text (message, stderr, stdout) is the error's text block",
    PRE_AMBLE_IN_FORM: "a question's pre-amble is the description of the elicitation form's field",
}

_OUTCOME_PROTOCOLS = ("outcome", "mcp-outcome")


@dataclass(frozen=True)
class Comparison:
    verdict: Verdict
    differences: tuple[str, ...] = ()  # expected-difference names, or the fields that differ
    # The two outcomes compared, when not the control and the candidate: the
    # control's stdout as the RFD 058 host parses it, and the candidate's first
    # run (`content-array-parsed`).
    compared: tuple[NormalizedOutcome, NormalizedOutcome] | None = None

    @property
    def ok(self) -> bool:
        return self.verdict != "mismatch"


def _questions(o: NormalizedOutcome) -> list[dict[str, Any]]:
    return [_questions_of(q) for q in o.questions]


def semantic_differences(a: NormalizedOutcome, b: NormalizedOutcome) -> list[str]:
    """The fields in which two outcomes differ semantically (empty when equal)."""
    diffs = [name for name in ("status", "is_error") if getattr(a, name) != getattr(b, name)]
    if _questions(a) != _questions(b):
        diffs.append("questions")
    if a.is_error and b.is_error:
        diffs += [name for name in ("transient", "trace") if getattr(a, name) != getattr(b, name)]
    if render(a.content) != render(b.content):
        diffs.append("content")
    return diffs


def compare_asked(
    control: Sequence[NormalizedOutcome],
    candidate: Sequence[NormalizedOutcome],
    given: Collection[str] = (),
) -> Comparison | None:
    """The runs before the last (each asked questions that were then answered); None when
    they agree (the last runs are `compare`'s), else a mismatch, or `pre-amble-in-form`.

    A question both asked must be the same question (text, schema, default). One asked
    by one side only is a mismatch unless its answer was `given` up front: a host that
    passes known answers on the first run (JP's legacy hosts) never shows it, while an
    MCP server asks anyway. With as many runs on both sides, each pair must agree too
    (a pre-amble is their content).
    """
    named = False
    if len(control) == len(candidate):
        for before, after in zip(control[:-1], candidate[:-1], strict=True):
            diffs = semantic_differences(before, after)
            if diffs and not _pre_amble_in_form(before, after):
                return Comparison("mismatch", tuple(diffs), (before, after))
            named = named or bool(diffs)
        return Comparison("expected", (PRE_AMBLE_IN_FORM,)) if named else None
    asked = [
        {q.id: (run, q) for run in runs[:-1] for q in run.questions}
        for runs in (control, candidate)
    ]
    for key in dict.fromkeys([*asked[0], *asked[1]]):
        sides = [side.get(key) for side in asked]
        if sides[0] is not None and sides[1] is not None:
            (before, q1), (after, q2) = sides  # type: ignore[misc]
            if _questions_of(q1) == _questions_of(q2):
                continue
            if not _described(q1, q2, render(before.content)):
                return Comparison("mismatch", ("questions",), (before, after))
            named = True
        elif key not in given:
            before = sides[0][0] if sides[0] is not None else control[-1]
            after = sides[1][0] if sides[1] is not None else candidate[-1]
            return Comparison("mismatch", ("questions",), (before, after))
    return Comparison("expected", (PRE_AMBLE_IN_FORM,)) if named else None


def with_asked(last: Comparison, asked: Comparison | None) -> Comparison:
    """The verdict of a whole case: its last runs' (`last`) and the question rounds'."""
    if asked is None:
        return last
    if asked.verdict == "mismatch" or last.verdict == "mismatch":
        return asked if asked.verdict == "mismatch" else last
    differences = tuple(dict.fromkeys([*last.differences, *asked.differences]))
    return Comparison("expected", differences, last.compared)


def _pre_amble_in_form(before: NormalizedOutcome, after: NormalizedOutcome) -> bool:
    """A question round whose pre-amble (the control's content) is, after, the description
    of each question's schema, with nothing else changed."""
    pre_amble = render(before.content)
    return (
        bool(pre_amble)
        and not render(after.content)
        and (before.status, before.is_error) == (after.status, after.is_error)
        and len(before.questions) == len(after.questions) > 0
        and all(
            _described(q1, q2, pre_amble)
            for q1, q2 in zip(before.questions, after.questions, strict=True)
        )
    )


def _described(q1: NormalizedQuestion, q2: NormalizedQuestion, pre_amble: str) -> bool:
    """`q2` is `q1` with `pre_amble` as its schema's description (which a form shows after
    its message: `bridge.forms`)."""
    schema = dict(q2.schema_)
    if not pre_amble or schema.pop("description", None) != pre_amble:
        return False
    shown = {**_questions_of(q2), "text": q2.text.removesuffix(f" {pre_amble}"), "schema": schema}
    return _questions_of(q1) == shown


def _questions_of(q: NormalizedQuestion) -> dict[str, Any]:
    return {"id": q.id, "text": q.text, "schema": q.schema_, "default": q.default}


def _is_content_array(text: str) -> bool:
    """What the RFD 058 host parses as an envelope (`read_envelope`'s test), SPEC §2."""
    try:
        value = load_json(text)
    except ContractError:
        return False
    return isinstance(value, dict) and isinstance(value.get("content"), list)


def _as_parsed(control: NormalizedOutcome) -> NormalizedOutcome | None:
    """The raw control's stdout as the RFD 058 host reads it, when that is an envelope.

    This is the one outcome the candidate may be for `content-array-parsed`: the
    same stdout, now parsed. A candidate that differs from it is a mismatch.
    """
    stdout = render(control.content)
    if not _is_content_array(stdout):
        return None
    run = ToolRun(name="", stdout=stdout, stderr=control.stderr, exit_code=control.exit_code)
    return blocks_outcome(run).outcome


def _failure_text_in_content(
    control: NormalizedOutcome, candidate: NormalizedOutcome, diffs: Sequence[str]
) -> bool:
    """A raw run that failed (the legacy host's failure text) against an error envelope
    whose one rendering is exactly that text: the same words reach the model."""
    return (
        list(diffs) == ["content"]
        and control.protocol == "raw"
        and control.is_error
        and control.exit_code not in (0, None)
        and candidate.protocol == "blocks"
        and candidate.is_error
        and render(candidate.content) == control.text == candidate.text
    )


def compare(
    control: NormalizedOutcome,
    candidate: NormalizedOutcome,
    *,
    first: NormalizedOutcome | None = None,
) -> Comparison:
    """`candidate` against `control`; `first` is the candidate's first run when it asked questions.

    A raw control whose stdout is a content array is expected to be read as
    that envelope now: the candidate's first run must be exactly that parse
    (later runs are the new host answering the questions it holds).
    """
    diffs = semantic_differences(control, candidate)
    if not diffs:
        if control.text == candidate.text:
            return Comparison("match")
        if (
            control.is_error
            and control.protocol in _OUTCOME_PROTOCOLS
            and candidate.protocol not in _OUTCOME_PROTOCOLS
            and candidate.text == render(candidate.content)
        ):
            name = TRANSIENT_ERROR_IN_META if control.transient else ERROR_TEXT_IS_MESSAGE
            return Comparison("expected", (name,))
        return Comparison("mismatch", ("text",))
    if _failure_text_in_content(control, candidate, diffs):
        return Comparison("expected", (FAILURE_TEXT_IN_CONTENT,))
    parsed = (
        _as_parsed(control)
        if control.protocol == "raw" and candidate.protocol == "blocks"
        else None
    )
    if parsed is not None:
        held = first or candidate
        left = semantic_differences(parsed, held)
        if not left and parsed.text == held.text:
            return Comparison("expected", (CONTENT_ARRAY_PARSED,), (parsed, held))
        return Comparison("mismatch", tuple(left or ["text"]), (parsed, held))
    return Comparison("mismatch", tuple(diffs))
