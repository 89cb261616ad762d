"""Stored conversation events (SPEC §3): the two shapes of `tool_call_response`.

Every other event is kept as the raw JSON object it was; the store never
re-serializes an event it did not migrate.
"""

from __future__ import annotations

from typing import Literal

from pydantic import JsonValue

from jp_migrate.contract._base import Open
from jp_migrate.contract.blocks import ContentBlock


class LegacyToolCallResponse(Open):
    """`content` is the (maybe base64-encoded) `Result<String, String>` payload."""

    timestamp: str | None = None
    type: Literal["tool_call_response"]
    id: str
    content: str
    is_error: bool
    metadata: dict[str, JsonValue] | None = None


class MigratedToolCallResponse(Open):
    """`content` is a list of RFD 058 blocks; payload fields carry the at-rest encoding."""

    timestamp: str | None = None
    type: Literal["tool_call_response"]
    id: str
    content: list[ContentBlock]
    is_error: bool
    metadata: dict[str, JsonValue] | None = None
