"""Shared helpers for the bridge tests: tiny legacy/migrated tools and workspaces built in tmp dirs."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

# One tool, written twice: emitting legacy `Outcome` JSON, and emitting RFD 058 envelopes.
_COMMON = """
import json, sys
tool = json.loads(sys.argv[1])
args, answers = tool["arguments"], tool["answers"]
action = args.get("action", "greet")
"""

LEGACY_TOOL = _COMMON + textwrap.dedent("""
    def out(o): print(json.dumps(o))
    if action == "greet":
        out({"type": "success", "content": f"Hello, {args.get('name', 'you')}!"})
    elif action == "fail":
        out({"type": "error", "message": "no such file", "trace": [], "transient": False})
    elif action == "flaky":
        out({"type": "error", "message": "try again", "trace": ["timeout"], "transient": True})
    elif action == "confirm":
        if "confirm" not in answers:
            out({"type": "needs_input", "question": {"id": "confirm", "text": "Apply?", "answer_type": "Boolean"}})
        else:
            out({"type": "success", "content": "applied" if answers["confirm"] else "skipped"})
    elif action == "pick":
        if "color" not in answers:
            out({"type": "needs_input", "question": {"id": "color", "text": "Colour?", "pre_amble": "Pick one.",
                 "answer_type": {"Select": {"options": ["red", "green"]}}, "default": "green"}})
        else:
            out({"type": "success", "content": "picked " + answers["color"]})
    elif action == "ask_name":
        if "name" not in answers:
            out({"type": "needs_input", "question": {"id": "name", "text": "Your name?", "answer_type": "Text"}})
        else:
            out({"type": "success", "content": "hi " + answers["name"]})
    elif action == "raw":
        print("plain text", end="")
    elif action == "crash":
        print("half", end=""); print("boom", file=sys.stderr); sys.exit(3)
    elif action == "envelope":
        print(json.dumps({"content": [{"type": "text", "text": "inside"}]}), end="")
    elif action == "context":
        out({"type": "success", "content": json.dumps({k: v for k, v in tool.items() if k != "name"}, sort_keys=True)})
""")

MIGRATED_TOOL = _COMMON + textwrap.dedent("""
    HELLO = "Hello"
    def out(o): print(json.dumps(o))
    def text(t): return {"type": "text", "text": t}
    if action == "greet":
        out({"content": [text(f"{HELLO}, {args.get('name', 'you')}!")]})
    elif action == "fail":
        out({"content": [text("no such file")], "isError": True,
             "_meta": {"computer.jp/error": {"transient": False, "trace": []}}})
    elif action == "flaky":
        out({"content": [text("try again")], "isError": True,
             "_meta": {"computer.jp/error": {"transient": True, "trace": ["timeout"]}}})
    elif action == "confirm":
        if "confirm" not in answers:
            out({"content": [{"type": "question", "question": {"id": "confirm", "text": "Apply?",
                 "schema": {"type": "boolean"}}}]})
        else:
            out({"content": [text("applied" if answers["confirm"] else "skipped")]})
    elif action == "pick":
        if "color" not in answers:
            out({"content": [text("Pick one."), {"type": "question", "question": {"id": "color", "text": "Colour?",
                 "schema": {"type": "string", "enum": ["red", "green"]}, "default": "green"}}]})
        else:
            out({"content": [text("picked " + answers["color"])]})
    elif action == "raw":
        print("plain text", end="")
    elif action == "crash":
        print("half", end=""); print("boom", file=sys.stderr); sys.exit(3)
    elif action == "envelope":
        print(json.dumps({"content": [{"type": "text", "text": "inside"}]}), end="")
    elif action == "context":
        out({"content": [text(json.dumps({k: v for k, v in tool.items() if k != "name"}, sort_keys=True))]})
""")

# The migrated tool with one behaviour changed by mistake: it greets differently.
BROKEN_TOOL = MIGRATED_TOOL.replace('HELLO = "Hello"', 'HELLO = "Hi"')


def python_on_path() -> dict[str, str]:
    """The environment with this interpreter's directory first on PATH, so `python3` has our packages."""
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def write_tools(root: Path) -> Path:
    """A workspace with `legacy.py`, `migrated.py`, `broken.py` and a JP config naming each."""
    (root / ".jp" / "mcp" / "tools").mkdir(parents=True, exist_ok=True)
    for name, source in (
        ("legacy", LEGACY_TOOL),
        ("migrated", MIGRATED_TOOL),
        ("broken", BROKEN_TOOL),
    ):
        (root / f"{name}.py").write_text(source, encoding="utf-8")
        (root / ".jp" / "mcp" / "tools" / f"{name}.toml").write_text(
            f'[conversation.tools.{name}]\nsource = "local"\n'
            f"command = \"{sys.executable} {name}.py '{{{{tool}}}}'\"\n",
            encoding="utf-8",
        )
    return root


def template(name: str) -> str:
    return f"{sys.executable} {name}.py '{{{{tool}}}}'"


def write_cases(path: Path, cases: list[dict]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def live_processes(marker: str) -> list[int]:
    """PIDs of running (not zombie) processes whose command line contains `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().split()[2]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


# A hand-written MCP server on the wire (no SDK): its tools/call result is argv[1] (JSON), its
# tools/list argv[2] (JSON; default: one tool `t`). Tests that need a server the SDK would not
# let them write (an invalid result, a link with no resources, tool names no file can have).
WIRE_SERVER = """\
import json, sys
RESULT = json.loads(sys.argv[1])
TOOLS = json.loads(sys.argv[2]) if len(sys.argv) > 2 else [{"name": "t", "inputSchema": {"type": "object"}}]
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    m = msg["method"]
    if m == "initialize":
        res = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
               "serverInfo": {"name": "wire", "version": "1"}}
    elif m == "tools/list":
        res = {"tools": TOOLS}
    elif m == "tools/call":
        res = RESULT
    else:
        res = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": res}) + "\\n")
    sys.stdout.flush()
"""


_ASKING_SERVER = """\
import json, sys
REQUEST = json.loads(sys.argv[1])
pending = None
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("id") == "asked-1":
        said = msg.get("error") or msg.get("result")
        send({"jsonrpc": "2.0", "id": pending, "result": {"content": [
            {"type": "text", "text": json.dumps(said)}]}})
        continue
    if "id" not in msg:
        continue
    m = msg["method"]
    if m == "initialize":
        res = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
               "serverInfo": {"name": "asking", "version": "1"}}
    elif m == "tools/list":
        res = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    elif m == "tools/call":
        pending = msg["id"]
        send({"jsonrpc": "2.0", "id": "asked-1", **REQUEST})
        continue
    elif m == "server/discover":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no"}})
        continue
    else:
        res = {}
    send({"jsonrpc": "2.0", "id": msg["id"], "result": res})
"""


def asking_server(root: Path, method: str, params: dict) -> list[str]:
    """The command of a server (protocol 2025-11-25, as a server may, declared or not) whose
    tool `t` sends the client one request, `method` with `params`, during its tools/call,
    and returns what the client answered as JSON text."""
    script = root / "asking_server.py"
    script.write_text(_ASKING_SERVER, encoding="utf-8")
    return [sys.executable, str(script), json.dumps({"method": method, "params": params})]
