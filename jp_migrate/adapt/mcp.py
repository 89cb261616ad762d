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

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

TOOL_META = "computer.jp/tool"
CONTEXT_META = "computer.jp/context"
ADAPTER_META = "computer.jp/adapter"
# Our own `request_state` (answers so far), told apart from one the server made.
STATE_PREFIX = "computer.jp/adapt:"
MAX_QUESTIONS = 32  # questions asked in one call before the server is taken to be looping


class ServerGone(Exception):
    """The D31 server stopped answering (it exited, or its pipe closed)."""


def say(message: str) -> None:
    from jp_migrate.visible import line

    sys.stderr.write(f"error: {line(message)}\n")
    sys.stderr.flush()


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


def encode_state(answers: Mapping[str, Any]) -> str:
    return STATE_PREFIX + json.dumps(dict(answers), ensure_ascii=False, separators=(",", ":"))


def decode_state(state: str | None) -> dict[str, Any] | None:
    """The answers our `request_state` carries; None when it is not ours (or is broken)."""
    if not state or not state.startswith(STATE_PREFIX):
        return None
    try:
        answers = json.loads(state[len(STATE_PREFIX) :])
    except ValueError:
        return None
    return answers if isinstance(answers, dict) else None


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
