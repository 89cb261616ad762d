"""Helpers for the codemod tests: run a local tool the way JP does (SPEC §1)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import minijinja

from jp_migrate.convert.host import ToolRun


def _format(value: Any) -> str:
    """JP's template formatter: strings/numbers/bools raw, maps and lists compact JSON, none → null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (Mapping, list, tuple)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return str(value)


_ENV = minijinja.Environment(finalizer=_format)


def tool_command(
    workspace: Path, name: str, arguments: Mapping[str, Any], answers: Mapping[str, Any]
) -> list[str]:
    """The argv JP would exec for tool `name` of `workspace` (`python3` → this interpreter)."""
    for path in sorted((workspace / ".jp" / "mcp" / "tools").rglob("*.toml")):
        config = (
            tomllib.loads(path.read_text("utf-8"))
            .get("conversation", {})
            .get("tools", {})
            .get(name)
        )
        if config is not None:
            break
    else:
        raise LookupError(f"no tool {name!r} in {workspace}")
    context = {
        "tool": {
            "name": name,
            "arguments": dict(arguments),
            "answers": dict(answers),
            "options": {},
        },
        "context": {
            "action": "run",
            "root": str(workspace),
            "access": None,
            "workspace_id": None,
            "conversation_id": None,
        },
    }
    argv = [_ENV.render_str(part, **context) for part in shlex.split(config["command"])]
    return [sys.executable if argv[0] == "python3" else argv[0], *argv[1:]]


def run_tool(
    workspace: Path,
    name: str,
    arguments: Mapping[str, Any],
    answers: Mapping[str, Any] | None = None,
) -> ToolRun:
    argv = tool_command(workspace, name, arguments, answers or {})
    done = subprocess.run(
        argv, cwd=workspace, capture_output=True, text=True, timeout=60, check=False
    )
    return ToolRun(name=name, stdout=done.stdout, stderr=done.stderr, exit_code=done.returncode)
