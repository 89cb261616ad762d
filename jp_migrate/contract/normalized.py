"""The normalized outcome of one tool run (SPEC §5): what every comparison compares."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from jp_migrate.contract._base import Closed, JsonInt
from jp_migrate.contract.blocks import ContentBlock

Protocol = Literal["outcome", "blocks", "raw", "mcp", "mcp-outcome", "mcp-input-required"]
RunStatus = Literal["completed", "needs_input", "cancelled"]


class NormalizedQuestion(Closed):
    id: str
    text: str
    schema_: dict[str, JsonValue] = Field(alias="schema")
    default: JsonValue = None


class NormalizedOutcome(Closed):
    """Every field is always present, so two observations compare field by field."""

    protocol: Protocol
    status: RunStatus
    is_error: bool
    transient: bool
    trace: list[str]
    content: list[ContentBlock]
    questions: list[NormalizedQuestion]
    text: str
    exit_code: JsonInt | None
    stderr: str
