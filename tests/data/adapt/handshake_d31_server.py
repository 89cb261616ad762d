"""A D31 server that knows only the `initialize` handshake, as servers built on mcp<2 do:
`server/discover` is an unknown method. Its one tool, `go_on`, asks before it answers."""

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def outcome(key: object, value: dict) -> None:
    text = json.dumps(value)
    send({"jsonrpc": "2.0", "id": key, "result": {"content": [{"type": "text", "text": text}]}})


for line in sys.stdin:
    msg = json.loads(line)
    method, key = msg.get("method"), msg.get("id")
    if key is None:
        continue
    if method == "initialize":
        result = {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "handshake-d31", "version": "1"},
        }
        send({"jsonrpc": "2.0", "id": key, "result": result})
    elif method == "tools/list":
        tool = {"name": "go_on", "inputSchema": {"type": "object", "properties": {}}}
        send({"jsonrpc": "2.0", "id": key, "result": {"tools": [tool]}})
    elif method == "tools/call":
        meta = msg["params"].get("_meta") or {}
        answers = (meta.get("computer.jp/tool") or {}).get("answers") or {}
        if "ok" not in answers:
            question = {"id": "ok", "text": "Go on?", "answer_type": "Boolean", "default": None}
            outcome(key, {"type": "needs_input", "question": question})
        else:
            outcome(key, {"type": "success", "content": "went on" if answers["ok"] else "stopped"})
    else:
        send(
            {"jsonrpc": "2.0", "id": key, "error": {"code": -32601, "message": "Method not found"}}
        )
