"""Helpers the example tools share to build and print legacy Outcomes (SPEC §1).

Not a tool itself: `grep_notes.py` imports it. Written in two idioms the
codemod handles, a `dict(...)` call and a dict built key by key.
"""

import json
from typing import Any


def success(content: str) -> dict[str, Any]:
    return dict(type="success", content=content)  # noqa: C408 - the idiom this example shows


def failure(message: str, *trace: str, transient: bool = False) -> dict[str, Any]:
    outcome: dict[str, Any] = {}
    outcome["type"] = "error"
    outcome["message"] = message
    outcome["trace"] = list(trace)
    outcome["transient"] = transient
    return outcome


def emit(outcome: dict[str, Any]) -> None:
    """One JSON document on stdout, non-ASCII kept as is."""
    print(json.dumps(outcome, ensure_ascii=False))
