"""`jp-migrate adapt --mcp -- SERVER_CMD`: an MCP server (stdio) in front of an RFD D31 `--jp` server.

The server is started once and kept for the session. Between it and the client
the adapter is a relay (`relay`): each JSON-RPC line is read only for its method
and id and passed on as it came, both ways, so tools, resources, prompts,
completions, notifications (progress, logging, list_changed, cancelled) and the
server's own requests (sampling, roots, elicitation) pass through untouched.
What it changes goes through the official SDK's types (`d31_calls`): a
`tools/call` result D31 would unwrap (one text item holding an `Outcome`)
becomes the native result (`outcome_result`); `NeedsInput` becomes an
elicitation (`elicitation/create`): inside an `input_required` result for a
2026-07-28 client, a request of its own mid-call for an older one. The answer
goes back to the server on its re-call under `_meta."computer.jp/tool".answers`
(RFD D31), with the answers given before it: an `input_required` round carries
them in its `request_state`. Native results pass through untouched.

A server that cannot start is one line on stderr (exit 2); one that dies
mid-call is one line on stderr and an `isError` result naming it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

import orjson

TOOL_META = "computer.jp/tool"
CONTEXT_META = "computer.jp/context"
ADAPTER_META = "computer.jp/adapter"
# Our own `request_state` (the question asked, the answers so far, signed), told apart
# from one the server made.
STATE_PREFIX = "computer.jp/adapt:"
MAX_QUESTIONS = 32  # questions asked in one call before the server is taken to be looping


class ServerGone(Exception):
    """The D31 server stopped answering (it exited, or its pipe closed)."""


class StateError(Exception):
    """A re-call's `requestState` or answers the adapter cannot take (the reason names the field)."""


def say(message: str, *, kind: str = "error") -> None:
    from jp_migrate.visible import line

    sys.stderr.write(f"{kind}: {line(message)}\n")
    sys.stderr.flush()


def warn(message: str) -> None:
    say(message, kind="warning")


def meta_problem(meta: Any) -> str | None:
    """What is wrong with a `tools/call`'s `_meta` for D31 (the field and the reason), or None:
    the adapter merges answers into `computer.jp/tool`, so it and its `answers` must be objects."""
    if meta is None:
        return None
    if not isinstance(meta, dict):
        return "params._meta: expected an object"
    tool = meta.get(TOOL_META)
    if tool is None:
        return None
    if not isinstance(tool, dict):
        return f'params._meta."{TOOL_META}": expected an object'
    answers = tool.get("answers")
    if answers is not None and not isinstance(answers, dict):
        return f'params._meta."{TOOL_META}".answers: expected an object'
    return None


def d31_meta(
    meta: Mapping[str, Any] | None,
    name: str,
    arguments: Mapping[str, Any],
    answers: Mapping[str, Any],
) -> dict[str, Any] | None:
    """The re-call's `_meta`: the client's own, with `answers` added to `computer.jp/tool`
    (D31's shape; `computer.jp/context` as the client sent it, else this directory)."""
    merged = dict(meta or {})
    if not answers:
        return merged or None
    tool = dict(merged.get(TOOL_META) or {})
    tool.setdefault("name", name)
    tool.setdefault("arguments", dict(arguments))
    tool["answers"] = {**(tool.get("answers") or {}), **answers}
    tool.setdefault("options", {})
    merged[TOOL_META] = tool
    merged.setdefault(CONTEXT_META, {"action": "run", "root": os.getcwd()})
    return merged


class State(NamedTuple):
    """What an `input_required` round of ours carries to the client's re-call: the question it
    asked, the answers given before it, and how many questions the call has asked."""

    asked: str
    answers: dict[str, Any]
    rounds: int


def _call_digest(name: str, arguments: Mapping[str, Any]) -> str:
    body = orjson.dumps({"name": name, "arguments": arguments}, option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(body).hexdigest()


def encode_state(secret: bytes, name: str, arguments: Mapping[str, Any], state: State) -> str:
    """Our `request_state`: `state` for the call `name(arguments)`, signed with the session's
    `secret`, so a re-call can only carry answers to a question this adapter asked of it."""
    body = orjson.dumps({"call": _call_digest(name, arguments), **state._asdict()})
    mac = hmac.new(secret, body, hashlib.sha256).hexdigest()
    return f"{STATE_PREFIX}{base64.urlsafe_b64encode(body).decode()}.{mac}"


def is_ours(state: Any) -> bool:
    return isinstance(state, str) and state.startswith(STATE_PREFIX)


def decode_state(secret: bytes, state: str, name: str, arguments: Mapping[str, Any]) -> State:
    """The `State` a re-call of `name(arguments)` carries back; StateError when it is not one
    this session signed for that call."""
    token, _, mac = state[len(STATE_PREFIX) :].rpartition(".")
    try:
        body = base64.urlsafe_b64decode(token.encode())
    except (ValueError, TypeError):
        body = b""
    expected = hmac.new(secret, body, hashlib.sha256).hexdigest()
    if not body or not hmac.compare_digest(mac.encode(), expected.encode()):
        raise StateError("params.requestState: not one this adapter issued")
    data = orjson.loads(body)
    if data["call"] != _call_digest(name, arguments):
        raise StateError("params.requestState: issued for another call (tool or arguments)")
    return State(data["asked"], data["answers"], data["rounds"])


def gone_result(name: str, reason: str, stderr_tail: str) -> dict[str, Any]:
    """What a call gets when the server died under it: the model reads why."""
    return {
        "content": [{"type": "text", "text": f"Tool '{name}' failed: {reason}"}],
        "isError": True,
        "_meta": {
            "computer.jp/error": {"transient": False, "trace": []},
            ADAPTER_META: {"stderr": stderr_tail},
        },
    }
