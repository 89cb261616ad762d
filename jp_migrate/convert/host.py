"""How a host turns one tool run into the normalized outcome (SPEC §1 table, §2, §5).

`legacy_outcome` is JP before RFD 058 (stdout parsed as an `Outcome`),
`blocks_outcome` is JP after it (stdout parsed as an envelope). Both fall back
to the raw path, which is the same on either side.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from jp_migrate.contract.blocks import ContentBlock, Envelope, QuestionBlock, text_block
from jp_migrate.contract.normalized import NormalizedOutcome, NormalizedQuestion, Protocol
from jp_migrate.contract.outcome import Outcome, OutcomeError, OutcomeNeedsInput, OutcomeSuccess
from jp_migrate.contract.parse import read_envelope, try_outcome
from jp_migrate.convert.render import render
from jp_migrate.convert.upgrade import answer_schema

CANCELLED_TEXT = "Tool execution cancelled by user."


@dataclass(frozen=True)
class ToolRun:
    """What one execution of a tool produced, as a host sees it."""

    name: str
    stdout: str
    stderr: str = ""
    exit_code: int | None = 0
    cancelled: bool = False


@dataclass
class Normalized:
    outcome: NormalizedOutcome
    warnings: list[str] = field(default_factory=list)


def compact_json(value: Any) -> str:
    """serde_json's compact form: no spaces, non-ASCII unescaped."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _make(
    protocol: Protocol,
    *,
    content: list[ContentBlock],
    text: str,
    run: ToolRun | None,
    status: str = "completed",
    is_error: bool = False,
    transient: bool = False,
    trace: list[str] | None = None,
    questions: list[NormalizedQuestion] | None = None,
) -> NormalizedOutcome:
    return NormalizedOutcome.model_validate(
        {
            "protocol": protocol,
            "status": status,
            "is_error": is_error,
            "transient": transient if is_error else False,
            "trace": list(trace or []) if is_error else [],
            "content": content,
            "questions": questions or [],
            "text": text,
            "exit_code": run.exit_code if run else None,
            "stderr": run.stderr if run else "",
        }
    )


def failure_text(run: ToolRun) -> str:
    """The legacy host's Err text for a non-`Outcome` run that exited non-zero."""
    return compact_json(
        {"message": f"Tool '{run.name}' execution failed.", "stderr": run.stderr, "stdout": run.stdout}
    )


def raw_outcome(run: ToolRun, protocol: Protocol = "raw") -> NormalizedOutcome:
    failed = run.exit_code not in (0, None)
    text = failure_text(run) if failed else run.stdout
    return _make(protocol, content=[text_block(run.stdout)], text=text, run=run, is_error=failed)


def cancelled_outcome(run: ToolRun, protocol: Protocol = "raw") -> NormalizedOutcome:
    return _make(protocol, content=[text_block(CANCELLED_TEXT)], text=CANCELLED_TEXT, run=run, status="cancelled")


def outcome_semantics(
    outcome: Outcome, *, raw_text: str, protocol: Protocol, run: ToolRun | None = None
) -> NormalizedOutcome:
    """SPEC §1's result table for a parsed `Outcome` (`raw_text` is what the tool printed)."""
    if isinstance(outcome, OutcomeSuccess):
        return _make(protocol, content=[text_block(outcome.content)], text=outcome.content, run=run)
    if isinstance(outcome, OutcomeError):
        text = (
            compact_json({"message": outcome.message, "trace": list(outcome.trace)})
            if outcome.transient
            else raw_text
        )
        return _make(
            protocol,
            content=[text_block(outcome.message)],
            text=text,
            run=run,
            is_error=True,
            transient=outcome.transient,
            trace=list(outcome.trace),
        )
    if isinstance(outcome, OutcomeNeedsInput):
        q = outcome.question
        content = [] if q.pre_amble is None else [text_block(q.pre_amble)]
        question = NormalizedQuestion.model_validate(
            {"id": q.id, "text": q.text, "schema": answer_schema(q.answer_type), "default": q.default}
        )
        return _make(
            protocol, content=content, text=render(content), run=run, status="needs_input", questions=[question]
        )
    raise TypeError(f"not an Outcome: {type(outcome).__name__}")


def envelope_semantics(
    envelope: Envelope, *, protocol: Protocol, run: ToolRun | None = None
) -> NormalizedOutcome:
    """RFD 058 semantics: questions pulled out, `_meta` error details, text = rendering."""
    content: list[ContentBlock] = []
    questions: list[NormalizedQuestion] = []
    for block in envelope.content:
        if isinstance(block, QuestionBlock):
            q = block.question
            questions.append(
                NormalizedQuestion.model_validate(
                    {"id": q.id, "text": q.text, "schema": q.schema_, "default": q.default}
                )
            )
        else:
            content.append(block)
    error = envelope.error_meta
    return _make(
        protocol,
        content=content,
        text=render(content),
        run=run,
        status="needs_input" if questions else "completed",
        is_error=envelope.isError,
        transient=error.transient,
        trace=list(error.trace),
        questions=questions,
    )


def legacy_outcome(run: ToolRun) -> Normalized:
    """The legacy host: an `Outcome` on stdout takes the `Outcome` path, else raw."""
    if run.cancelled:
        return Normalized(cancelled_outcome(run))
    outcome = try_outcome(run.stdout)
    if outcome is None:
        return Normalized(raw_outcome(run))
    return Normalized(outcome_semantics(outcome, raw_text=run.stdout, protocol="outcome", run=run))


def blocks_outcome(run: ToolRun) -> Normalized:
    """The RFD 058 host: a JSON object with a `content` array is an envelope, else raw."""
    if run.cancelled:
        return Normalized(cancelled_outcome(run))
    parsed = read_envelope(run.stdout)
    if parsed is None:
        return Normalized(raw_outcome(run))
    envelope, warnings = parsed
    return Normalized(envelope_semantics(envelope, protocol="blocks", run=run), warnings)
