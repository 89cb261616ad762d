"""The shipped JSON Schemas (draft 2020-12): one file per document kind.

The files are generated from the pydantic models (`build.py`) by
`python -m jp_migrate.contract.schemas`; a test checks they are current, another
that models and schemas accept and reject the same documents.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

SCHEMA_NAMES = (
    "outcome",
    "envelope",
    "content-block",
    "tool-call-response-legacy",
    "tool-call-response-migrated",
    "normalized-outcome",
    "report",
)


def schema_text(name: str) -> str:
    if name not in SCHEMA_NAMES:
        raise KeyError(name)
    return resources.files(__name__).joinpath(f"{name}.schema.json").read_text("utf-8")


@cache
def load_schema(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(schema_text(name))
    return result


@cache
def validator(name: str) -> Any:
    """A jsonschema validator for a shipped schema (the format checker on)."""
    from jsonschema import Draft202012Validator

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
