"""`jp-migrate bridge import --mcp SERVER`: RFD D08's import of an MCP server's tools.

Lists the tools of a server configured in `[providers.mcp.<server>]` and writes
one `.jp/mcp/tools/<tool>.toml` per tool: `source = "mcp.<server>.<tool>"`,
summary and description from the tool's definition, parameters from its input
schema. An existing file is left alone unless `force`; a file is written whole
(a temporary file renamed over it) or not at all.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jp_migrate.bridge.errors import BridgeError

if TYPE_CHECKING:
    from mcp_types import Tool

# MCP's tool-name characters (2025-11-25); anything else could not be a file name safely.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
# The JSON Schema keywords a parameter keeps (JP's parameter config: type, required,
# summary, description, default, enum); anything else stays with the server.
_TYPES = ("string", "number", "integer", "boolean", "array", "object")


@dataclass(frozen=True)
class Imported:
    tool: str
    path: Path
    error: str = ""  # why it was not written; empty: written


def _summary(text: str | None) -> tuple[str, str | None]:
    """A definition's description as JP's (summary, description): the first line, and the
    whole text when it says more."""
    text = (text or "").strip()
    first = text.splitlines()[0].strip() if text else ""
    return first, (text if text != first else None)


def _parameter(name: str, schema: Any, required: bool) -> dict[str, Any]:
    schema = schema if isinstance(schema, Mapping) else {}
    entry: dict[str, Any] = {}
    kind = schema.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        entry["type"] = kind
    entry["required"] = required
    summary, description = _summary(schema.get("description") or schema.get("title"))
    if summary:
        entry["summary"] = summary
    if description:
        entry["description"] = description
    if schema.get("default") is not None:
        entry["default"] = schema["default"]
    if isinstance(schema.get("enum"), list) and None not in schema["enum"]:
        entry["enum"] = list(schema["enum"])
    return entry


def tool_document(server: str, tool: Any) -> str:
    """The TOML for one tool definition (an SDK `Tool`)."""
    import tomlkit

    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"Imported from MCP server {server!r} by `jp-migrate bridge import`."))
    entry = tomlkit.table()
    entry["source"] = f"mcp.{server}.{tool.name}"
    summary, description = _summary(tool.description or tool.title)
    if summary:
        entry["summary"] = summary
    if description:
        entry["description"] = tomlkit.string(description, multiline="\n" in description)
    schema = tool.input_schema if isinstance(tool.input_schema, Mapping) else {}
    properties = schema.get("properties")
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    if isinstance(properties, Mapping) and properties:
        parameters = tomlkit.table(is_super_table=True)
        for name, prop in properties.items():
            parameters[name] = _parameter(name, prop, name in required)
        entry["parameters"] = parameters
    conversation = tomlkit.table(is_super_table=True)
    tools = tomlkit.table(is_super_table=True)
    tools[tool.name] = entry
    conversation["tools"] = tools
    doc["conversation"] = conversation
    return tomlkit.dumps(doc)


def _write(path: Path, text: str) -> None:
    """`text` to `path` whole, or not at all: a temporary file beside it, renamed over it
    (a symlink at `path` is replaced, never written through)."""
    fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(partial)
        raise


def import_tools(
    directory: Path,
    server_name: str,
    *,
    tool: str | None = None,
    force: bool = False,
    timeout: float | None = None,
) -> list[Imported]:
    """Write `.jp/mcp/tools/<tool>.toml` for `tool` (or every tool) of `server_name`."""
    from jp_migrate.bridge.config import load_workspace
    from jp_migrate.bridge.edge import run
    from jp_migrate.bridge.mcp_client import McpSession

    ws = load_workspace(directory)
    server = ws.server(server_name, source=str(ws.root / ".jp" / "config.toml"))
    session = McpSession(server, ws.root, timeout=timeout)

    async def listed() -> list[Tool]:
        async with session:
            return await session.list_tools()

    definitions = run(listed)
    by_name = {d.name: d for d in definitions}
    if tool is not None and tool not in by_name:
        offered = ", ".join(sorted(by_name)) or "none"
        raise BridgeError(f"has no tool {tool!r} (it offers: {offered})", source=session.label)
    chosen = [by_name[tool]] if tool is not None else definitions
    target = ws.root / ".jp" / "mcp" / "tools"
    results: list[Imported] = []
    for definition in chosen:
        path = target / f"{definition.name}.toml"
        if not _TOOL_NAME.fullmatch(definition.name) or definition.name in (".", ".."):
            results.append(Imported(definition.name, path, "not a name a file can have"))
            continue
        if (path.exists() or path.is_symlink()) and not force:
            results.append(Imported(definition.name, path, "exists; --force to overwrite it"))
            continue
        try:
            target.mkdir(parents=True, exist_ok=True)
            _write(path, tool_document(server_name, definition))
        except OSError as exc:
            results.append(Imported(definition.name, path, f"cannot write: {exc.strerror or exc}"))
            continue
        results.append(Imported(definition.name, path))
    return results
