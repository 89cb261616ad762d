"""An RFD D31 `tools/call` result → the native MCP result (RFD D31's unwrap guard, SPEC §1, §2).

Pure functions on wire JSON. A result is converted only when D31 would unwrap
it: exactly one content item, text, that parses as an `Outcome`; an `isError`
result holding `Outcome::Success` is D31's tie, which the flag wins, so it stays
as it is. Anything else is native already and passes through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from jp_migrate.adapt.plain_result import outcome_reading
from jp_migrate.contract.plain import outcome_shape

ERROR_META = "computer.jp/error"


class Question(NamedTuple):
    """A legacy question as an MCP elicitation form asks it."""

    id: str
    text: str
    schema: dict[str, Any]  # the answer's JSON Schema (SPEC §2: Boolean, Text, Select)
    pre_amble: str | None
    default: Any  # None: the question has none

    def form(self) -> dict[str, Any]:
        """The form's requested schema: one field, named after the question's id.

        The pre-amble is the field's description: an elicitation has no content
        beside its message, which is the question's own text.
        """
        field = dict(self.schema)
        if self.pre_amble is not None:
            field["description"] = self.pre_amble
        if self.default is not None:
            field["default"] = self.default
        return {"type": "object", "properties": {self.id: field}, "required": [self.id]}


class Converted(NamedTuple):
    """A native result (wire JSON), or the question to ask before calling again."""

    result: dict[str, Any] | None
    question: Question | None


def convert(result: Mapping[str, Any]) -> Converted | None:
    """The native form of a D31 `Outcome` result, or None: pass `result` through untouched.

    Read as the legacy host reads stdout (`contract.plain`, by orjson where that is
    certainly the same: `plain_result`): the models load only for what the plain
    reading cannot decide (a question, a field of an odd type).
    """
    items = result.get("content")
    if not isinstance(items, list) or len(items) != 1:
        return None
    item = items[0]
    if not isinstance(item, Mapping) or item.get("type") != "text":
        return None
    text = item.get("text")
    if not isinstance(text, str):
        return None
    obj = outcome_reading(text)
    shape = outcome_shape(obj)
    if shape == "none":
        return None
    kept = {k: v for k, v in result.items() if k not in ("content", "isError")}
    if shape == "success":
        return _success(result, kept, obj["content"])
    if shape == "error":
        return _error(kept, obj["message"], obj["trace"], obj["transient"])
    return _modelled(result, kept, text)


def _success(result: Mapping[str, Any], kept: dict[str, Any], content: str) -> Converted | None:
    if result.get("isError"):
        return None  # D31's tie: the flag wins, the result is an error as it stands
    return Converted({**kept, "content": [{"type": "text", "text": content}]}, None)


def _error(kept: dict[str, Any], message: str, trace: list[str], transient: bool) -> Converted:
    meta = dict(kept.pop("_meta", None) or {})
    meta[ERROR_META] = {"transient": transient, "trace": list(trace)}
    native = {**kept, "content": [{"type": "text", "text": message}], "isError": True}
    return Converted({**native, "_meta": meta}, None)


def _modelled(result: Mapping[str, Any], kept: dict[str, Any], text: str) -> Converted | None:
    from jp_migrate.contract.outcome import OutcomeError, OutcomeSuccess
    from jp_migrate.contract.parse import try_outcome
    from jp_migrate.convert.upgrade import answer_schema

    outcome = try_outcome(text)
    if outcome is None:
        return None
    if isinstance(outcome, OutcomeSuccess):
        return _success(result, kept, outcome.content)
    if isinstance(outcome, OutcomeError):
        return _error(kept, outcome.message, list(outcome.trace), outcome.transient)
    q = outcome.question
    return Converted(
        None, Question(q.id, q.text, answer_schema(q.answer_type), q.pre_amble, q.default)
    )
