"""The legacy `Outcome` (jp_tool::Outcome), with JP's exact serde behaviour (SPEC §1)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, JsonValue, Tag, model_validator

from jp_migrate.contract._base import Closed, Lenient, tagged


class SelectOptions(Lenient):
    options: list[str]


class SelectAnswer(Closed):
    """`{"Select": {"options": [...]}}`: externally tagged, exactly one key."""

    Select: SelectOptions


class UnitAnswerMap(Closed):
    """serde_json also reads a unit variant written as a one-key map: `{"Boolean": null}`."""

    model_config = ConfigDict(json_schema_extra={"minProperties": 1, "maxProperties": 1})

    Boolean: None = None
    Text: None = None

    @model_validator(mode="before")
    @classmethod
    def _one_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and len(data) != 1:
            raise ValueError("an externally tagged answer_type has exactly one key")
        return data


def _answer_tag(value: Any) -> str | None:
    if isinstance(value, SelectAnswer):
        return "~select"
    if isinstance(value, UnitAnswerMap):
        return "~unitmap"
    if isinstance(value, str):
        return "~unit"
    if isinstance(value, dict):
        return "~select" if "Select" in value else "~unitmap"
    return None


AnswerType = Annotated[
    (
        Annotated[Literal["Boolean", "Text"], Tag("~unit")]
        | Annotated[SelectAnswer, Tag("~select")]
        | Annotated[UnitAnswerMap, Tag("~unitmap")]
    ),
    tagged(_answer_tag, 'answer_type must be "Boolean", "Text" or {"Select": {"options": [...]}}'),
]


def answer_kind(answer_type: Any) -> str:
    """`Boolean`, `Text` or `Select`, whichever way the variant was written."""
    if isinstance(answer_type, str):
        return answer_type
    if isinstance(answer_type, SelectAnswer):
        return "Select"
    return "Boolean" if "Boolean" in answer_type.model_fields_set else "Text"


class LegacyQuestion(Lenient):
    id: str
    text: str
    answer_type: AnswerType
    pre_amble: str | None = None
    default: JsonValue = None


class OutcomeSuccess(Lenient):
    type: Literal["success"]
    content: str


class OutcomeError(Lenient):
    type: Literal["error"]
    message: str
    trace: list[str]
    transient: bool


class OutcomeNeedsInput(Lenient):
    type: Literal["needs_input"]
    question: LegacyQuestion


def _outcome_tag(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return f"~{kind}" if kind in ("success", "error", "needs_input") else None


Outcome = Annotated[
    (
        Annotated[OutcomeSuccess, Tag("~success")]
        | Annotated[OutcomeError, Tag("~error")]
        | Annotated[OutcomeNeedsInput, Tag("~needs_input")]
    ),
    tagged(_outcome_tag, "type must be one of success, error, needs_input", key="type"),
]
