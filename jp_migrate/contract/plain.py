"""Reading stdout's shape without the models, where the answer is certain (SPEC §1, §2).

The pydantic models are the contract. This is an exact pre-reading for hot
paths (`bridge run` starts a process per call and should not pay for pydantic
when it needs none): it answers only when the models could not answer
otherwise, and says `"models"` when they must decide. `tests/test_contract_plain.py`
checks it against `parse.try_outcome` and `parse.read_envelope`.

The Outcome's variants, fields and their order are read from the shipped
`outcome.schema.json`, which is generated from the models: one statement of
the shape, read here without loading pydantic.
"""

from __future__ import annotations

import json
import os
import re

from jp_migrate.contract.jsontext import TOO_DEEP, load_json
from jp_migrate.errors import ContractError

# The adapter in front of a tool reads this module: typing and pathlib would be most of its imports.
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from typing import Any, Literal

_OUTCOME_SCHEMA = os.path.join(os.path.dirname(__file__), "schemas", "outcome.schema.json")


def _outcome_shape() -> tuple[dict[str, tuple[str, ...]], tuple[str, ...], frozenset[str]]:
    """From the shipped schema: each variant's tag and fields in declaration order (a
    sequence's order), the question's fields, and every field name of the Outcome."""
    with open(_OUTCOME_SCHEMA, encoding="utf-8") as file:
        schema = json.load(file)
    defs = schema["$defs"]
    variants: dict[str, tuple[str, ...]] = {}
    for member in schema["oneOf"]:
        properties = defs[member["$ref"].rpartition("/")[2]]["properties"]
        variants[properties["type"]["const"]] = tuple(k for k in properties if k != "type")
    names = frozenset(k for d in defs.values() for k in d.get("properties", ()))
    return variants, tuple(defs["LegacyQuestion"]["properties"]), names


OUTCOME_FIELDS, QUESTION_FIELDS, _FIELD_NAMES = _outcome_shape()
OUTCOME_TAGS = tuple(OUTCOME_FIELDS)

if TYPE_CHECKING:
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


# Where a key of a struct serde derives could stand (a quote, the name, a quote, a colon).
_KNOWN_KEY = re.compile(r'"(' + "|".join(sorted(map(re.escape, _FIELD_NAMES))) + r')"\s*:')


def outcome_view(obj: Any, text: str) -> Any:
    """The parsed stdout `obj` (of `text`) as JP's `serde_json::from_str::<Outcome>` sees it.

    serde reads an internally tagged enum from a sequence too, the tag first and
    then the variant's fields in order (`["success", "done"]` is a Success), and
    refuses an object that repeats one of its fields, where the standard library
    keeps the last. A sequence that is an Outcome comes back as its object; one
    serde refuses, or a repeated field, is a ContractError; anything else is
    returned as it is.
    """
    if isinstance(obj, list):
        return _from_sequence(obj)
    tag = obj.get("type") if isinstance(obj, dict) else None
    if isinstance(tag, str) and tag in OUTCOME_FIELDS and ("\\u" in text or _repeated_names(text)):
        _refuse_repeats(text, tag)
    return obj


def outcome_reading(text: str) -> Any:
    """stdout as JP reads it for an `Outcome`: `outcome_view` of its JSON, or None when
    it is not JSON or serde refuses it (so certainly no Outcome)."""
    try:
        return outcome_view(load_json(text), text)
    except ContractError:
        return None


def _from_sequence(items: list[Any]) -> Any:
    if not items or not isinstance(items[0], str) or items[0] not in OUTCOME_FIELDS:
        return items  # the tag is missing or unknown: not an Outcome
    tag, values = items[0], items[1:]
    fields = OUTCOME_FIELDS[tag]
    if len(values) != len(fields):
        raise ContractError(
            f"invalid length {len(values)}, expected {len(fields)} after the tag {tag!r}",
            field="type",
        )
    return {"type": tag, **dict(zip(fields, values, strict=True))}


def _repeated_names(text: str) -> bool:
    seen: set[str] = set()
    for match in _KNOWN_KEY.finditer(text):
        if match.group(1) in seen:
            return True
        seen.add(match.group(1))
    return False


class _Pairs(list[tuple[str, object]]):
    """A JSON object as its (key, value) pairs, repeats kept (serde's buffered content)."""


def _refuse_repeats(text: str, tag: str) -> None:
    """ContractError when a struct of the Outcome repeats a field (serde's `duplicate field`)."""
    try:
        top = json.loads(text, object_pairs_hook=_Pairs)
    except RecursionError:  # deeper in the stack than load_json's parse: may fail where it did not
        raise ContractError(f"invalid JSON: {TOO_DEEP}") from None
    _check_struct(top, ("type", *OUTCOME_FIELDS[tag]), "")
    question = dict(top).get("question") if tag == "needs_input" else None
    if not isinstance(question, _Pairs):
        return
    _check_struct(question, QUESTION_FIELDS, "question.")
    answer = dict(question).get("answer_type")
    if isinstance(answer, _Pairs):
        if len(answer) != 1:  # an externally tagged enum: a map with a single key
            raise ContractError("expected a map with a single key", field="question.answer_type")
        name, select = answer[0]
        if name == "Select" and isinstance(select, _Pairs):
            _check_struct(select, ("options",), "question.answer_type.Select.")


def _check_struct(pairs: _Pairs, fields: tuple[str, ...], prefix: str) -> None:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in fields:
            if key in seen:
                raise ContractError(f"duplicate field `{key}`", field=f"{prefix}{key}")
            seen.add(key)
