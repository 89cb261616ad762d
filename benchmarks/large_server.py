"""A D31 server for `bench_adapt.py --large`, in plain Python: no SDK between the benchmark and
the relay. Tools: `big {size}` answers an Outcome success of `size` bytes of text; `size {text}`
answers an Outcome success holding the length of `text` (a large request, a small answer)."""

from __future__ import annotations

import json
import sys

out = sys.stdout.buffer


def answer(key: object, content: str) -> None:
    text = json.dumps({"type": "success", "content": content})
    result = {"content": [{"type": "text", "text": text}]}
    out.write(json.dumps({"jsonrpc": "2.0", "id": key, "result": result}).encode() + b"\n")
    out.flush()


for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg or "method" not in msg:
        continue
    key, params = msg["id"], msg.get("params") or {}
    if msg["method"] == "initialize":
        info = {"name": "large", "version": "1"}
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": info,
        }
        out.write(json.dumps({"jsonrpc": "2.0", "id": key, "result": result}).encode() + b"\n")
        out.flush()
    elif params.get("name") == "big":
        answer(key, "x" * int(params["arguments"]["size"]))
    elif params.get("name") == "size":
        answer(key, str(len(params["arguments"]["text"])))
