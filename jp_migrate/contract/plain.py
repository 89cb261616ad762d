"""Reading stdout's shape without the models, where the answer is certain (SPEC §1, §2).

The pydantic models are the contract. This is an exact pre-reading for hot
paths (`bridge run` starts a process per call and should not pay for pydantic
when it needs none): it answers only when the models could not answer
otherwise, and says `"models"` when they must decide. `tests/test_contract_plain.py`
checks it against `parse.try_outcome` and `parse.read_envelope`.
"""

from __future__ import annotations

from typing import Any, Literal

OUTCOME_TAGS = ("success", "error", "needs_input")

# none: certainly not an Outcome; success/error: certainly that variant, every field
# as read; models: only the models can tell (needs_input, or a field of the wrong type).
OutcomeShape = Literal["none", "success", "error", "models"]


def outcome_shape(obj: Any) -> OutcomeShape:
    """What `parse.try_outcome` makes of the parsed JSON value `obj`, when that is certain."""
    if not isinstance(obj, dict):
        return "none"
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in OUTCOME_TAGS:
        return "none"  # the union's tag fails: never an Outcome
    if kind == "success" and type(obj.get("content")) is str:
        return "success"
    if kind == "error" and _plain_error(obj):
        return "error"
    return "models"


def _plain_error(obj: dict[str, Any]) -> bool:
    trace = obj.get("trace")
    return (
        type(obj.get("message")) is str
        and type(obj.get("transient")) is bool
        and type(trace) is list
        and all(type(line) is str for line in trace)
    )


def envelope_candidate(obj: Any) -> bool:
    """RFD 058 host parsing: a JSON object with a `content` array is an envelope (else raw)."""
    return isinstance(obj, dict) and isinstance(obj.get("content"), list)


def text_envelope(obj: Any) -> tuple[list[str], bool] | None:
    """An envelope candidate's texts and `isError`, when every block is exactly a text block
    (`{"type": "text", "text": …}`, no other key), `isError` is absent or a bool and there
    is no `_meta`: then `read_envelope` keeps every block and warns of nothing. Else None.
    """
    if not envelope_candidate(obj) or "_meta" in obj:
        return None
    is_error = obj.get("isError", False)
    if type(is_error) is not bool:
        return None
    texts: list[str] = []
    for block in obj["content"]:
        if type(block) is not dict or block.keys() != {"type", "text"} or block["type"] != "text":
            return None
        if type(block["text"]) is not str:
            return None
        texts.append(block["text"])
    return texts, is_error
