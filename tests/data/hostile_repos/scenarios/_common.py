"""Helpers the scenarios share: a JP workspace with a legacy tool, written plainly."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

LEGACY_TOOL = (
    "import json, sys\n"
    "args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}\n"
    'print(json.dumps({"type": "success", "content": "echo: " + str(args.get("text", ""))}))\n'
)


def write(path: Path, data: str | bytes, mode: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    if mode is not None:
        path.chmod(mode)
    return path


def tool_table(name: str, command: str = "python3 echo.py '{{tool.arguments}}'") -> str:
    return f'[conversation.tools.{name}]\nsource = "local"\ncommand = {json.dumps(command)}\n'


def workspace(root: Path, config: str = "") -> Path:
    write(root / ".jp" / "config.toml", config)
    write(root / "echo.py", LEGACY_TOOL)
    return root


def marker(was: object, wrote_sources: list[str]) -> str:
    """A marker line as the docs describe it: the replaced values' TOML source, and the
    first 16 hex digits of the sha256 of the adapted values' sources joined by newlines."""
    wrote = hashlib.sha256("\n".join(wrote_sources).encode("utf-8")).hexdigest()[:16]
    return "# jp-migrate adapt: " + json.dumps({"was": was, "wrote": wrote}, separators=(",", ":"))
