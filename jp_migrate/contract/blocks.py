"""RFD 058 content blocks and the response envelope (SPEC §2).

Unknown keys are kept (`Open`), so a block read and written again loses nothing;
dump with `by_alias=True, exclude_unset=True` to get back exactly what was set.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, JsonValue, Tag, model_validator

from jp_migrate.contract._base import Open, OpenAliased, tagged

BLOCK_TYPES = ("text", "resource", "question", "image", "audio")


class TextBlock(Open):
    type: Literal["text"]
    text: str


class Annotations(Open):
    audience: list[Literal["user", "assistant"]] | None = None
    priority: float | None = None
    lastModified: str | None = None


class Resource(Open):
    """MCP's embedded resource, with RFD 065's optional JP extensions."""

    model_config = ConfigDict(
        json_schema_extra={  # `_text_or_blob`, for the JSON Schema
            "description": "Exactly one of `text` or `blob` is a string.",
            "oneOf": [
                {"required": ["text"], "properties": {"text": {"type": "string"}}},
                {"required": ["blob"], "properties": {"blob": {"type": "string"}}},
            ],
        }
    )

    uri: str
    mimeType: str | None = None
    text: str | None = None
    blob: str | None = None
    annotations: Annotations | None = None
    name: str | None = None
    title: str | None = None
    description: str | None = None
    # RFD 065 places `formatted` on the resource; RFD 058's example on the block. Both read.
    formatted: str | None = None

    @model_validator(mode="after")
    def _text_or_blob(self) -> Resource:
        if (self.text is None) == (self.blob is None):
            raise ValueError("a resource carries exactly one of `text` or `blob`")
        return self


class ResourceBlock(Open):
    type: Literal["resource"]
    resource: Resource
    formatted: str | None = None


class InputRequest(OpenAliased):
    id: str
    text: str
    schema_: dict[str, JsonValue] = Field(alias="schema")
    default: JsonValue = None


class QuestionBlock(Open):
    type: Literal["question"]
    question: InputRequest


class ImageBlock(Open):
    """MCP image content: kept as a block, never rendered (RFD 058 non-goal)."""

    type: Literal["image"]
    data: str
    mimeType: str


class AudioBlock(Open):
    """MCP audio content: kept as a block, never rendered (RFD 058 non-goal)."""

    type: Literal["audio"]
    data: str
    mimeType: str


def _block_tag(value: Any) -> str | None:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return f"~{kind}" if isinstance(kind, str) and kind in BLOCK_TYPES else None


ContentBlock = Annotated[
    (
        Annotated[TextBlock, Tag("~text")]
        | Annotated[ResourceBlock, Tag("~resource")]
        | Annotated[QuestionBlock, Tag("~question")]
        | Annotated[ImageBlock, Tag("~image")]
        | Annotated[AudioBlock, Tag("~audio")]
    ),
    tagged(_block_tag, f"type must be one of {', '.join(BLOCK_TYPES)}", key="type"),
]

Status = Literal["running", "waiting", "stopped"]


class ErrorMeta(Open):
    transient: bool = False
    trace: list[str] = Field(default_factory=list)


class EnvelopeMeta(OpenAliased):
    error: ErrorMeta | None = Field(default=None, alias="computer.jp/error")
    status: Status | None = Field(default=None, alias="computer.jp/status")


class Envelope(OpenAliased):
    content: list[ContentBlock]
    isError: bool = False
    meta: EnvelopeMeta | None = Field(default=None, alias="_meta")

    @property
    def status(self) -> Status:
        """`stopped` when `_meta."computer.jp/status"` is absent (RFD 058)."""
        return (self.meta.status if self.meta else None) or "stopped"

    @property
    def error_meta(self) -> ErrorMeta:
        """Non-transient with no trace when `_meta."computer.jp/error"` is absent."""
        return (self.meta.error if self.meta else None) or ErrorMeta()


def text_block(text: str) -> TextBlock:
    return TextBlock(type="text", text=text)


def question_block(
    id: str, text: str, schema: dict[str, Any], default: Any = None, *, with_default: bool
) -> QuestionBlock:
    """`default` is written only when the legacy question had one (`with_default`)."""
    fields: dict[str, Any] = {"id": id, "text": text, "schema": schema}
    if with_default:
        fields["default"] = default
    return QuestionBlock(type="question", question=InputRequest.model_validate(fields))
