"""How a host turns one tool run into the normalized outcome (SPEC §1 table, §2, §5).

`legacy_outcome` is JP before RFD 058 (stdout parsed as an `Outcome`),
`blocks_outcome` is JP after it (stdout parsed as an envelope). Both fall back
to the raw path, which is the same on either side.

Each rule of the table is written once, as the normalized outcome's JSON
fields (`*_fields`, plain values only); the model functions validate those
fields into a `NormalizedOutcome`. `plain_legacy`/`plain_raw` give the same
fields without pydantic when the stdout's reading is certain without the
models (`contract.plain`), for hot paths that only print the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jp_migrate.contract.jsontext import dumps_compact, load_json
from jp_migrate.contract.plain import (
    envelope_candidate,
    outcome_reading,
    outcome_shape,
    text_envelope,
)
from jp_migrate.convert.failure import legacy_failure_text
from jp_migrate.errors import ContractError

if TYPE_CHECKING:
    from jp_migrate.contract.blocks import ContentBlock, Envelope
    from jp_migrate.contract.normalized import NormalizedOutcome, NormalizedQuestion, Protocol
    from jp_migrate.contract.outcome import Outcome

# The models (pydantic) load on first use: the plain readings below need none of them.

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
    """serde_json's compact form: no spaces, non-ASCII unescaped, its numbers."""
    return dumps_compact(value)


def _text(text: str) -> dict[str, Any]:
    """A text block as its JSON object (what `text_block(text)` dumps to)."""
    return {"type": "text", "text": text}


def normalized_fields(
    protocol: Protocol,
    *,
    content: list[Any],
    text: str,
    run: ToolRun | None,
    status: str = "completed",
    is_error: bool = False,
    transient: bool = False,
    trace: list[str] | None = None,
    questions: list[Any] | None = None,
) -> dict[str, Any]:
    """A `NormalizedOutcome`'s fields (SPEC §5); blocks and questions as models or JSON objects."""
    return {
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


def _validated(fields: dict[str, Any]) -> NormalizedOutcome:
    from jp_migrate.contract.normalized import NormalizedOutcome

    return NormalizedOutcome.model_validate(fields)


def _make(protocol: Protocol, **kwargs: Any) -> NormalizedOutcome:
    return _validated(normalized_fields(protocol, **kwargs))


def failure_text(run: ToolRun) -> str:
    """The legacy host's Err text for a non-`Outcome` run that exited non-zero."""
    return legacy_failure_text(run.name, run.stdout, run.stderr)


def raw_fields(run: ToolRun, protocol: Protocol = "raw") -> dict[str, Any]:
    failed = run.exit_code not in (0, None)
    text = failure_text(run) if failed else run.stdout
    return normalized_fields(
        protocol, content=[_text(run.stdout)], text=text, run=run, is_error=failed
    )


def raw_outcome(run: ToolRun, protocol: Protocol = "raw") -> NormalizedOutcome:
    return _validated(raw_fields(run, protocol))


def cancelled_outcome(run: ToolRun, protocol: Protocol = "raw") -> NormalizedOutcome:
    return _make(
        protocol, content=[_text(CANCELLED_TEXT)], text=CANCELLED_TEXT, run=run, status="cancelled"
    )


def success_fields(content: str, *, protocol: Protocol, run: ToolRun | None) -> dict[str, Any]:
    """SPEC §1: `Outcome::Success` — the content is the text, as one text block."""
    return normalized_fields(protocol, content=[_text(content)], text=content, run=run)


def error_fields(
    message: str,
    trace: list[str],
    transient: bool,
    *,
    raw_text: str,
    protocol: Protocol,
    run: ToolRun | None,
) -> dict[str, Any]:
    """SPEC §1: `Outcome::Error` — transient errors reach the model as JSON, others as printed."""
    text = compact_json({"message": message, "trace": list(trace)}) if transient else raw_text
    return normalized_fields(
        protocol,
        content=[_text(message)],
        text=text,
        run=run,
        is_error=True,
        transient=transient,
        trace=list(trace),
    )


def outcome_semantics(
    outcome: Outcome, *, raw_text: str, protocol: Protocol, run: ToolRun | None = None
) -> NormalizedOutcome:
    """SPEC §1's result table for a parsed `Outcome` (`raw_text` is what the tool printed)."""
    from jp_migrate.contract.blocks import text_block
    from jp_migrate.contract.normalized import NormalizedQuestion
    from jp_migrate.contract.outcome import OutcomeError, OutcomeNeedsInput, OutcomeSuccess
    from jp_migrate.convert.render import render
    from jp_migrate.convert.upgrade import answer_schema

    if isinstance(outcome, OutcomeSuccess):
        return _validated(success_fields(outcome.content, protocol=protocol, run=run))
    if isinstance(outcome, OutcomeError):
        return _validated(
            error_fields(
                outcome.message,
                list(outcome.trace),
                outcome.transient,
                raw_text=raw_text,
                protocol=protocol,
                run=run,
            )
        )
    if isinstance(outcome, OutcomeNeedsInput):
        q = outcome.question
        content = [] if q.pre_amble is None else [text_block(q.pre_amble)]
        question = NormalizedQuestion.model_validate(
            {
                "id": q.id,
                "text": q.text,
                "schema": answer_schema(q.answer_type),
                "default": q.default,
            }
        )
        return _make(
            protocol,
            content=content,
            text=render(content),
            run=run,
            status="needs_input",
            questions=[question],
        )
    raise TypeError(f"not an Outcome: {type(outcome).__name__}")


def envelope_fields(
    content: list[Any],
    questions: list[Any],
    *,
    text: str,
    is_error: bool,
    transient: bool,
    trace: list[str],
    protocol: Protocol,
    run: ToolRun | None,
) -> dict[str, Any]:
    """RFD 058: blocks other than questions (rendered to `text`), questions pulled out."""
    return normalized_fields(
        protocol,
        content=content,
        text=text,
        run=run,
        status="needs_input" if questions else "completed",
        is_error=is_error,
        transient=transient,
        trace=trace,
        questions=questions,
    )


def envelope_semantics(
    envelope: Envelope, *, protocol: Protocol, run: ToolRun | None = None
) -> NormalizedOutcome:
    """RFD 058 semantics: questions pulled out, `_meta` error details, text = rendering."""
    from jp_migrate.contract.blocks import QuestionBlock
    from jp_migrate.contract.normalized import NormalizedQuestion
    from jp_migrate.convert.render import render

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
    return _validated(
        envelope_fields(
            content,
            questions,
            text=render(content),
            is_error=envelope.isError,
            transient=error.transient,
            trace=list(error.trace),
            protocol=protocol,
            run=run,
        )
    )


def legacy_outcome(run: ToolRun) -> Normalized:
    """The legacy host: an `Outcome` on stdout takes the `Outcome` path, else raw."""
    from jp_migrate.contract.parse import try_outcome

    if run.cancelled:
        return Normalized(cancelled_outcome(run))
    outcome = try_outcome(run.stdout)
    if outcome is None:
        return Normalized(raw_outcome(run))
    return Normalized(outcome_semantics(outcome, raw_text=run.stdout, protocol="outcome", run=run))


def blocks_outcome(run: ToolRun) -> Normalized:
    """The RFD 058 host: a JSON object with a `content` array is an envelope, else raw."""
    from jp_migrate.contract.parse import read_envelope

    if run.cancelled:
        return Normalized(cancelled_outcome(run))
    parsed = read_envelope(run.stdout)
    if parsed is None:
        return Normalized(raw_outcome(run))
    envelope, warnings = parsed
    return Normalized(envelope_semantics(envelope, protocol="blocks", run=run), warnings)


# ── plain readings (no pydantic): the same fields, when the models are not needed ──


def _plain_reading(stdout: str) -> tuple[Any, bool]:
    """stdout as parsed JSON, and whether it parsed (what `try_outcome`/`read_envelope` see)."""
    try:
        return load_json(stdout), True
    except ContractError:
        return None, False


def plain_raw(run: ToolRun) -> dict[str, Any]:
    """`raw_outcome(run)` as its JSON fields (`dump`'s output), without the models."""
    return raw_fields(run)


def plain_legacy(run: ToolRun) -> dict[str, Any] | None:
    """`legacy_outcome(run).outcome` as its JSON fields, or None when only the models can tell."""
    if run.cancelled:
        return None
    obj = outcome_reading(run.stdout)
    shape = outcome_shape(obj)
    if shape == "success":
        return success_fields(obj["content"], protocol="outcome", run=run)
    if shape == "error":
        return error_fields(
            obj["message"],
            obj["trace"],
            obj["transient"],
            raw_text=run.stdout,
            protocol="outcome",
            run=run,
        )
    return None if shape == "models" else raw_fields(run)


def plain_blocks(run: ToolRun) -> dict[str, Any] | None:
    """`blocks_outcome(run).outcome` as its JSON fields (it then has no warnings), or None
    when only the models can tell (an envelope with other than plain text blocks)."""
    from jp_migrate.convert.render import join_rendered

    if run.cancelled:
        return None
    obj, parsed = _plain_reading(run.stdout)
    if not parsed or not envelope_candidate(obj):
        return raw_fields(run)
    envelope = text_envelope(obj)
    if envelope is None:
        return None
    texts, is_error = envelope
    return envelope_fields(
        [_text(t) for t in texts],
        [],
        text=join_rendered(texts),
        is_error=is_error,
        transient=False,  # no `_meta`: ErrorMeta's defaults (SPEC §2)
        trace=[],
        protocol="blocks",
        run=run,
    )


def is_outcome_candidate(run: ToolRun) -> bool:
    """Whether stdout might be an `Outcome` (False: `try_outcome` certainly returns None)."""
    return outcome_shape(outcome_reading(run.stdout)) != "none"
