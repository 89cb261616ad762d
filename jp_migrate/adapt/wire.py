"""What can be told of a JSON-RPC message the relay will not read whole.

A message over the size limit is dropped unread, and one that is not JSON (or nests
deeper than JP reads) cannot be parsed; the relay still owes its sender an answer,
which needs the message's id. `members` reads what it can of the top-level object
from the message's first bytes, and its last member when that is `"id"` (a client
may put the id after the params).
"""

from __future__ import annotations

import json
import re
from typing import Any

# One JSON token: a string, a structural character, or a scalar (a number or a literal).
_TOKEN = re.compile(rb'\s*(?:("(?:[^"\\]|\\.)*")|([][{}:,])|(-?[0-9][0-9.eE+-]*|true|false|null))')
# The object's last member, when it is its id: `, "id": 7}` at the very end.
_LAST_ID = re.compile(rb',\s*"id"\s*:\s*(-?[0-9]+|"(?:[^"\\]|\\.)*")\s*\}\s*$')
NESTED = object()  # a member whose value is an array or an object (not read)


def valid_id(key: Any) -> bool:
    """Whether `key` is a JSON-RPC id MCP allows: a string or an integer (not a bool)."""
    return type(key) is str or type(key) is int


def members(head: bytes, tail: bytes = b"") -> dict[str, Any]:
    """The top-level members found in `head` (the message's first bytes), a nested value as
    NESTED, and `"id"` from `tail` (its last bytes) when it is the last member."""
    found: dict[str, Any] = {}
    tokens = _tokens(head)
    if next(tokens, None) == b"{":
        _object(tokens, found)
    if "id" not in found and (last := _LAST_ID.search(tail)) is not None:
        found["id"] = _scalar(last.group(1))
    return found


def _tokens(data: bytes) -> Any:
    at = 0
    while (match := _TOKEN.match(data, at)) is not None:
        at = match.end()
        yield match.group(0).strip()


def _object(tokens: Any, found: dict[str, Any]) -> None:
    """Read `key: value` pairs at the top level until the bytes run out or stop making sense."""
    while True:
        key = next(tokens, None)
        if key is None or not key.startswith(b'"') or next(tokens, None) != b":":
            return
        value = next(tokens, None)
        if value is None:
            return
        name = _scalar(key)
        if value in (b"{", b"["):
            found.setdefault(name, NESTED)
            if not _skip(tokens):
                return
        else:
            found.setdefault(name, _scalar(value))
        if next(tokens, None) != b",":
            return


def _skip(tokens: Any) -> bool:
    """Past the nested value just opened; False when the bytes end inside it."""
    depth = 1
    for token in tokens:
        if token in (b"{", b"["):
            depth += 1
        elif token in (b"}", b"]"):
            depth -= 1
            if depth == 0:
                return True
    return False


def _scalar(token: bytes) -> Any:
    try:
        return json.loads(token)
    except ValueError:
        return None
