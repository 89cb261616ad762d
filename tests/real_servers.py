"""MCP servers nobody on the team wrote, pinned: the reference server from npm, and two from PyPI.

`.ci/run` installs the npm one into tests/.npm (not committed); the PyPI ones come
with the `test` extra. A test that needs a server that is not there is skipped,
naming what is missing and how to install it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
EVERYTHING_VERSION = "2026.8.31"  # @modelcontextprotocol/server-everything, as .ci/run installs it
EVERYTHING = TESTS / ".npm" / "node_modules" / "@modelcontextprotocol" / "server-everything"
INSTALL = (
    f"npm install --prefix tests/.npm @modelcontextprotocol/server-everything@{EVERYTHING_VERSION}"
)


def everything_entry() -> Path:
    """The pinned reference server's script, or a skip saying why it cannot run."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed (the reference MCP server is a Node program)")
    try:
        installed = json.loads((EVERYTHING / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pytest.skip(f"@modelcontextprotocol/server-everything is not installed: {INSTALL}")
    if installed.get("version") != EVERYTHING_VERSION:
        pytest.skip(
            f"server-everything {installed.get('version')} is installed, the tests pin "
            f"{EVERYTHING_VERSION}: {INSTALL}"
        )
    return EVERYTHING / "dist" / "index.js"


def python_server(module: str) -> list[str]:
    """argv starting a PyPI server (`mcp_server_time`) with this interpreter, or a skip."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")
    return [sys.executable, "-m", module]


def workspace(root: Path, server: str, argv: list[str], tools: dict[str, str]) -> Path:
    """A workspace whose `.jp/config.toml` starts `argv` as MCP server `server` and names
    each of `tools` (local name → the server's tool name)."""
    jp = root / ".jp"
    jp.mkdir(parents=True, exist_ok=True)
    lines = [
        f"[providers.mcp.{server}]",
        f"command = {json.dumps(argv[0])}",
        f"arguments = {json.dumps(argv[1:])}",
    ]
    for name, remote in tools.items():
        lines += [f"[conversation.tools.{json.dumps(name)}]", f'source = "mcp.{server}.{remote}"']
    (jp / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def everything_workspace(root: Path, *tools: str) -> Path:
    """A workspace running the pinned reference server over stdio, naming `tools` as themselves."""
    entry = everything_entry()
    return workspace(root, "everything", ["node", str(entry), "stdio"], {t: t for t in tools})
