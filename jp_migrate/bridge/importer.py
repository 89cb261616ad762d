"""`jp-migrate bridge import --mcp SERVER`: RFD D08's import of an MCP server's tools.

Lists the tools of a server configured in `[providers.mcp.<server>]` and writes
one `.jp/mcp/tools/<tool>.toml` per tool: `source = "mcp.<server>.<tool>"`,
summary and description from the tool's definition, parameters from its input
schema. An existing file is left alone unless `force`; a file is written whole
or not at all, through `jp_migrate.files` (a link where it would go is refused).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jp_migrate.bridge.errors import BridgeError
from jp_migrate.errors import JpMigrateError
from jp_migrate.files import edit
from jp_migrate.files.workspace import JP_DIR, Boundary

if TYPE_CHECKING:
    from mcp_types import Tool

# MCP's tool-name characters (2025-11-25), and not a leading `.` or `-`: a name that is a
# hidden file, `..`, or an option to whoever lists the directory is refused.
_TOOL_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
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
    if schema.get("default") is not None and not _holds_null(schema["default"]):
        entry["default"] = schema["default"]
    if isinstance(schema.get("enum"), list) and not _holds_null(schema["enum"]):
        entry["enum"] = list(schema["enum"])
    return entry


def _holds_null(value: Any) -> bool:
    """Whether a JSON value holds a null anywhere: TOML has none, so such a default or enum
    is left to the server's schema."""
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            return True
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


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
    server = ws.server(server_name, source=str(ws.root / JP_DIR / "config.toml"))
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
    target = ws.root / JP_DIR / "mcp" / "tools"
    boundary = Boundary.of(ws.root)
    results: list[Imported] = []
    for definition in chosen:
        path = target / f"{definition.name}.toml"
        if not _TOOL_NAME.fullmatch(definition.name):
            results.append(Imported(definition.name, path, "not a name a file can have"))
            continue
        try:
            data = tool_document(server_name, definition).encode("utf-8")
            if force:
                edit.put(path, data, boundary, create_dirs=True)
            else:
                edit.create(path, data, boundary, create_dirs=True)
        except edit.FileExists:
            results.append(Imported(definition.name, path, "exists; --force to overwrite it"))
            continue
        except JpMigrateError as exc:  # a link on the way, another run writing it
            results.append(Imported(definition.name, path, str(exc).removeprefix(f"{path}: ")))
            continue
        except OSError as exc:
            results.append(Imported(definition.name, path, f"cannot write: {exc.strerror or exc}"))
            continue
        results.append(Imported(definition.name, path))
    return results
