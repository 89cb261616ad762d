"""A D31 server that misbehaves on request, in plain Python (no SDK): each tool is one way a
server can be hostile to the adapter in front of it. The wire is read and written by hand.

    python hostile_server.py [--version V]

Tools (their arguments under `arguments`):
  echo {text}            an Outcome success holding `text`
  big {size, outcome}    a result of `size` bytes of text (an Outcome success if `outcome`)
  deep {depth}           a result whose `_meta` nests `depth` levels
  forged {}              answers to ids nobody asked (one with the adapter's own prefix),
                         then its real answer
  batch {}               its answer inside a batch, beside a notification
  die_mid_line {}        half a line of its answer, then it exits
  ask {}                 asks `ok` (a Boolean) until the re-call's answers hold it; then says
                         which answers it got
  orphans {count}        leaves `count` orphans that end at once (they come to the adapter),
                         answers how many the adapter had not reaped after a while
  children {pidfile, detach}  starts a child in its group and (unless `detach` is false)
                         one that detaches itself (a session of its own), writes its pid
                         and theirs to `pidfile`, answers
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

VERSION = sys.argv[sys.argv.index("--version") + 1] if "--version" in sys.argv else "2025-11-25"
out = sys.stdout.buffer


def send(message: object) -> None:
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def result(key: object, value: dict) -> None:
    send({"jsonrpc": "2.0", "id": key, "result": value})


def outcome(key: object, value: dict) -> None:
    result(key, {"content": [{"type": "text", "text": json.dumps(value)}], "isError": False})


def call(key: object, name: str, args: dict, meta: dict) -> None:
    if name == "echo":
        outcome(key, {"type": "success", "content": args["text"]})
    elif name == "big":
        text = "x" * int(args["size"])
        if args.get("outcome"):
            outcome(key, {"type": "success", "content": text})
        else:
            result(key, {"content": [{"type": "text", "text": text}]})
    elif name == "deep":
        nested: object = "bottom"
        for _ in range(int(args["depth"]) - 3):  # the message's own: {, result, _meta
            nested = [nested]
        result(key, {"content": [{"type": "text", "text": "deep"}], "_meta": {"n": nested}})
    elif name == "forged":
        send({"jsonrpc": "2.0", "id": "jp-migrate-adapt:1", "result": {"content": []}})
        send({"jsonrpc": "2.0", "id": 424242, "result": {"content": []}})
        send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}})
        outcome(key, {"type": "success", "content": "real"})
    elif name == "batch":
        answer = {"type": "success", "content": "batched"}
        text = {"content": [{"type": "text", "text": json.dumps(answer)}]}
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}
        send([note, {"jsonrpc": "2.0", "id": key, "result": text}])
    elif name == "die_mid_line":
        out.write(b'{"jsonrpc":"2.0","id":' + json.dumps(key).encode() + b',"result":{"con')
        out.flush()
        os._exit(1)
    elif name == "ask":
        answers = (meta.get("computer.jp/tool") or {}).get("answers") or {}
        if "ok" not in answers:
            question = {"id": "ok", "text": "Go on?", "answer_type": "Boolean", "default": None}
            outcome(key, {"type": "needs_input", "question": question})
        else:
            outcome(key, {"type": "success", "content": json.dumps(answers, sort_keys=True)})
    elif name == "orphans":
        sys.path.insert(0, os.path.dirname(__file__))
        from orphans import left

        outcome(key, {"type": "success", "content": left(int(args["count"]))})
    elif name == "children":
        started = [subprocess.Popen(["sleep", "300"])]
        if args.get("detach", True):
            started.append(subprocess.Popen(["sleep", "300"], start_new_session=True))
        with open(args["pidfile"], "w") as pids:
            pids.write(" ".join(str(p) for p in (os.getpid(), *(s.pid for s in started))) + "\n")
        outcome(key, {"type": "success", "content": "started"})
    else:
        send({"jsonrpc": "2.0", "id": key, "error": {"code": -32601, "message": "no such tool"}})


for line in sys.stdin.buffer:
    msg = json.loads(line)
    if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
        continue  # notifications, and the client's answers to our requests
    method, key = msg["method"], msg["id"]
    params = msg.get("params") or {}
    if method == "initialize":
        info = {"name": "hostile", "version": "1"}
        result(key, {"protocolVersion": VERSION, "capabilities": {"tools": {}}, "serverInfo": info})
    elif method == "tools/call":
        call(key, params.get("name"), params.get("arguments") or {}, params.get("_meta") or {})
    elif method == "tools/list":
        names = [
            "echo",
            "big",
            "deep",
            "forged",
            "batch",
            "die_mid_line",
            "ask",
            "children",
            "orphans",
        ]
        schema = {"type": "object", "properties": {}}
        result(key, {"tools": [{"name": n, "inputSchema": schema} for n in names]})
    elif method == "ping":
        result(key, {})
    else:
        send({"jsonrpc": "2.0", "id": key, "error": {"code": -32601, "message": "unknown"}})
