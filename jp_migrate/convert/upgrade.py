"""Legacy `Outcome` → RFD 058 envelope (SPEC §2 mapping table), and legacy text → blocks."""

from __future__ import annotations

from typing import Any

from jp_migrate.contract.blocks import (
    ContentBlock,
    Envelope,
    EnvelopeMeta,
    ErrorMeta,
    question_block,
    text_block,
)
from jp_migrate.contract.outcome import (
    LegacyQuestion,
    Outcome,
    OutcomeError,
    OutcomeNeedsInput,
    OutcomeSuccess,
    SelectAnswer,
    answer_kind,
)


def answer_schema(answer_type: Any) -> dict[str, Any]:
    """`Boolean` → boolean, `Text` → string, `Select` → string enum."""
    kind = answer_kind(answer_type)
    if kind == "Boolean":
        return {"type": "boolean"}
    if kind == "Text":
        return {"type": "string"}
    assert isinstance(answer_type, SelectAnswer)
    return {"type": "string", "enum": list(answer_type.Select.options)}


def question_blocks(question: LegacyQuestion) -> list[ContentBlock]:
    """The optional pre-amble text block, then the question block."""
    blocks: list[ContentBlock] = []
    if question.pre_amble is not None:
        blocks.append(text_block(question.pre_amble))
    blocks.append(
        question_block(
            question.id,
            question.text,
            answer_schema(question.answer_type),
            question.default,
            with_default=question.default is not None,
        )
    )
    return blocks


def outcome_to_envelope(outcome: Outcome) -> Envelope:
    if isinstance(outcome, OutcomeSuccess):
        return Envelope(content=[text_block(outcome.content)])
    if isinstance(outcome, OutcomeError):
        meta = EnvelopeMeta.model_validate(
            {"computer.jp/error": ErrorMeta(transient=outcome.transient, trace=list(outcome.trace))}
        )
        return Envelope.model_validate(
            {"content": [text_block(outcome.message)], "isError": True, "_meta": meta}
        )
    if isinstance(outcome, OutcomeNeedsInput):
        return Envelope(content=question_blocks(outcome.question))
    raise TypeError(f"not an Outcome: {type(outcome).__name__}")


def legacy_to_blocks(text: str) -> list[ContentBlock]:
    """Faithful conversion of a legacy result string: one text block holding exactly it."""
    return [text_block(text)]
