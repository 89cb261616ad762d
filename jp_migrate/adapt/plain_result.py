"""The commonest D31 result converted without the exact machinery, where the answer is certain.

`adapt --mcp` converts every D31 `tools/call` result it relays. The exact paths
state what each answer is: `contract.plain.outcome_reading` reads the `Outcome`
as serde_json does (the standard library's parser, hooked), and
`d31_calls.sdk_call_result` shapes the native result through the SDK's models.
This module answers for the plain shape only (an `Outcome` that is a success or
an error of plain fields; text blocks, a bool `isError`, a JSON `_meta`) and
hands anything else back to them. `tests/test_adapt_plain_result.py` holds both
answers to their exact paths.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final, NamedTuple

import orjson

from jp_migrate.contract.plain import OUTCOME_FIELDS, outcome_shape, outcome_view
from jp_migrate.contract.plain import outcome_reading as exact_reading

# The keys a plain result may have, and the only ones the fast path writes.
_RESULT_KEYS: Final = frozenset(("_meta", "content", "isError", "resultType"))
_BLOCK_KEYS: Final = frozenset(("type", "text"))
# A success or an error of no other key: its fields are strings and bools only, which
# orjson and the standard library read alike (no number, no nesting past a list).
_PLAIN_OUTCOMES: Final = MappingProxyType(
    {tag: frozenset(("type", *OUTCOME_FIELDS[tag])) for tag in ("success", "error")}
)
# Far below the depth at which pydantic refuses to serialize (some 250 levels).
_META_DEPTH: Final = 64


class Layout(NamedTuple):
    """A protocol version's `tools/call` result as the SDK writes it: its keys in order,
    each with the value it fills in when the data has none, and a text block's keys."""

    keys: tuple[tuple[str, Any], ...]
    block: tuple[str, ...]


def layout(sdk_result: Callable[[dict[str, Any]], Mapping[str, Any]]) -> Layout | None:
    """A version's layout, read from its SDK path (`sdk_result`) answering a result that
    holds every key the fast path writes; None when that answer holds another key (a
    field this module does not know to fill: the SDK must answer every result)."""
    probed = sdk_result({"_meta": {}, "content": [{"type": "text", "text": ""}]})
    if not probed.keys() <= _RESULT_KEYS:
        return None
    defaults = tuple((k, None if k in ("_meta", "content") else v) for k, v in probed.items())
    return Layout(defaults, tuple(probed["content"][0]))


def call_result(shape: Layout, data: Mapping[str, Any]) -> dict[str, Any] | None:
    """`data` as the SDK writes it in `shape`'s version; None when `data` is not plain
    (the SDK must answer)."""
    if type(data) is not dict or not data.keys() <= _RESULT_KEYS:
        return None
    content = data.get("content")
    if type(content) is not list:
        return None
    texts = []
    for block in content:
        if type(block) is not dict or block.keys() != _BLOCK_KEYS or block["type"] != "text":
            return None
        text = block["text"]
        if type(text) is not str:
            return None
        texts.append(text)
    if type(data.get("isError", False)) is not bool:
        return None
    result_type = data.get("resultType", "complete")
    if type(result_type) is not str or result_type != "complete":
        return None
    meta = None
    if "_meta" in data:
        try:
            meta = _top_meta(data["_meta"])
        except _NotPlain:
            return None
    answer: dict[str, Any] = {}
    for key, default in shape.keys:
        if key == "content":
            answer[key] = [_block(shape.block, text) for text in texts]
        elif key == "_meta":
            if meta is not None:
                answer[key] = meta
        else:
            answer[key] = data.get(key, default)
    return answer


def outcome_reading(text: str) -> Any:
    """`contract.plain.outcome_reading(text)`: orjson's reading when the `Outcome` is a
    plain success or error, the exact reading otherwise."""
    try:
        view = outcome_view(orjson.loads(text), text)
    except (ValueError, RecursionError):  # not JSON to orjson, or refused: the exact reading
        return exact_reading(text)
    plain = type(view) is dict and outcome_shape(view) in ("success", "error")
    if plain and view.keys() == _PLAIN_OUTCOMES[view["type"]]:
        return view
    return exact_reading(text)


class _NotPlain(Exception):
    """A `_meta` the SDK's dump would change or refuse."""


def _block(keys: tuple[str, ...], text: str) -> dict[str, Any]:
    return {key: "text" if key == "type" else text for key in keys}


def _top_meta(meta: Any) -> dict[str, Any]:
    # The 2026-07-28 result's `_meta` is a model: its dump drops a key whose value is null.
    if type(meta) is not dict or any(value is None for value in meta.values()):
        raise _NotPlain
    copied: dict[str, Any] = _json(meta, _META_DEPTH)
    return copied


def _json(value: Any, depth: int) -> Any:
    """A copy of a JSON value the SDK's JSON-mode dump leaves as it is."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float and math.isfinite(value):  # NaN and infinities dump as null
        return value
    if depth == 0:
        raise _NotPlain
    if kind is list:
        return [_json(item, depth - 1) for item in value]
    if kind is dict:
        return {_key(key): _json(item, depth - 1) for key, item in value.items()}
    raise _NotPlain


def _key(key: Any) -> str:
    # A key that is not UTF-8 (a lone surrogate) is replaced, or refused, by the dump.
    if type(key) is not str or not (key.isascii() or _utf8(key)):
        raise _NotPlain
    return key


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
