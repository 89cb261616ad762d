"""The shipped JSON Schemas, generated from the pydantic models (the contract's one statement).

What pydantic cannot read off a model's fields (a validator's rule, such as a
resource carrying exactly one of `text` or `blob`) is stated beside that
validator, in the model's `json_schema_extra`.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter

from jp_migrate.contract.blocks import ContentBlock, Envelope
from jp_migrate.contract.events import LegacyToolCallResponse, MigratedToolCallResponse
from jp_migrate.contract.normalized import NormalizedOutcome
from jp_migrate.contract.outcome import Outcome
from jp_migrate.contract.report import Report

DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE = "urn:jp-migrate:schema:"

# name -> (the type a document of that kind is read as, the schema's title)
SOURCES: dict[str, tuple[Any, str]] = {
    "outcome": (Outcome, "Legacy JP tool Outcome (jp_tool::Outcome)"),
    "envelope": (Envelope, "RFD 058 tool response envelope"),
    "content-block": (ContentBlock, "RFD 058 content block"),
    "tool-call-response-legacy": (
        LegacyToolCallResponse,
        "Stored tool_call_response event, legacy shape (content is a string)",
    ),
    "tool-call-response-migrated": (
        MigratedToolCallResponse,
        "Stored tool_call_response event, migrated shape (content is RFD 058 blocks)",
    ),
    "normalized-outcome": (
        NormalizedOutcome,
        "The normalized outcome of one tool run (jp-migrate SPEC section 5)",
    ),
    "report": (Report, "Report"),
}


def build_schema(name: str) -> dict[str, Any]:
    """One self-contained schema: what the model reads (what it writes, for the report)."""
    kind, title = SOURCES[name]
    mode = "serialization" if name == "report" else "validation"
    generated = TypeAdapter(kind).json_schema(by_alias=True, mode=mode)
    defs = generated.pop("$defs", {})
    generated.pop("title", None)
    return {"$schema": DIALECT, "$id": f"{BASE}{name}", "title": title, **generated, "$defs": defs}


def all_schemas() -> dict[str, dict[str, Any]]:
    return {name: build_schema(name) for name in SOURCES}
