"""Find JP tools and MCP servers in a workspace's config (SPEC §1, RFD D08).

Sources, lowest precedence first: the files `.jp/config.toml` extends (globs
relative to `.jp/`, recursively), every `.jp/mcp/tools/**/*.toml`, then
`.jp/config.toml` itself. Tables merge deeply; a later file wins per key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, AliasChoices, ConfigDict, Field

from jp_migrate.bridge.command import CommandSpec, parse_command
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.configfile import ConfigModel, NonEmpty, validated
from jp_migrate.files.workspace import JP_DIR, find_workspace, workspace_id
from jp_migrate.tomlfile import read_toml

DEFAULT_STARTUP_SECS = 60  # JP's `startup_timeout_secs` default
M = TypeVar("M", bound="JpTable")


@dataclass(frozen=True)
class McpServer:
    """`[providers.mcp.<name>]`: `command`, `arguments`, `variables`, `startup_timeout_secs`."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)  # set over the inherited environment
    source: str = ""
    startup_timeout: float | None = float(DEFAULT_STARTUP_SECS)  # None: wait indefinitely (0)


def _variables(entries: list[str]) -> dict[str, str]:
    """`NAME=value` sets a variable; a bare `NAME` passes ours through (JP's `variables`)."""
    env: dict[str, str] = {}
    for entry in entries:
        key, sep, value = entry.partition("=")
        if sep:
            env[key] = value
        elif key in os.environ:
            env[key] = os.environ[key]
    return env


@dataclass(frozen=True)
class ToolConfig:
    """One `[conversation.tools.<name>]` entry, resolved enough to run it."""

    name: str
    kind: str  # "local", "mcp" or "builtin"
    source: str  # the file that defined it, for messages
    command: CommandSpec | None = None
    server: McpServer | None = None
    remote_name: str = ""  # the MCP tool's name on its server


@dataclass
class Workspace:
    root: Path
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # "tool:<name>"/"server:<name>" → file
    workspace_id: str | None = None

    def tool(self, name: str) -> ToolConfig:
        raw = self.tools.get(name)
        where = self.origins.get(f"tool:{name}", str(self.root / JP_DIR))
        if raw is None:
            known = ", ".join(sorted(self.tools)) or "none"
            raise BridgeError(
                f"no tool named {name!r} in the workspace config (known: {known})", source=where
            )
        return _resolve_tool(name, raw, where, self)

    def server(self, name: str, *, source: str) -> McpServer:
        raw = self.servers.get(name)
        if raw is None:
            known = ", ".join(sorted(self.servers)) or "none"
            raise BridgeError(
                f"no MCP server [providers.mcp.{name}] configured (known: {known})", source=source
            )
        where = self.origins.get(f"server:{name}", source)
        table = _validated(ServerTable, raw, where, f"providers.mcp.{name}.")
        return McpServer(
            name,
            table.command,
            tuple(table.arguments),
            _variables(table.variables),
            where,
            float(table.startup_timeout_secs) if table.startup_timeout_secs else None,
        )


class JpTable(ConfigModel):
    """A table of JP's own config: only the keys jp-migrate runs are read, the rest
    (a tool's summary, parameters, style, …) are JP's and left alone."""

    model_config = ConfigDict(extra="ignore")


def _stdio(kind: str) -> str:
    if kind != "stdio":
        raise ValueError(f'only type = "stdio" is supported, not {kind!r}')
    return kind


class ServerTable(JpTable):
    """`[providers.mcp.<name>]`."""

    type: Annotated[str, AfterValidator(_stdio)] = "stdio"
    command: NonEmpty
    arguments: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("arguments", "args")
    )
    variables: list[str] = Field(
        default_factory=list, validation_alias=AliasChoices("variables", "env")
    )
    startup_timeout_secs: Annotated[int, Field(ge=0)] = DEFAULT_STARTUP_SECS  # 0: no limit


class ToolTable(JpTable):
    """`[conversation.tools.<name>]`: where the tool comes from, and a local tool's command."""

    source: str = "local"
    command: Any = None  # a string or a table: parse_command reads it


def _validated(model: type[M], raw: Mapping[str, Any], where: str, prefix: str) -> M:
    return validated(
        model, raw, lambda key, why: BridgeError(f"{key}: {why}", source=where), prefix=prefix
    )


def _resolve_tool(name: str, raw: Mapping[str, Any], where: str, ws: Workspace) -> ToolConfig:
    table = _validated(ToolTable, raw, where, f"conversation.tools.{name}.")
    source = table.source
    if source == "local" or source.startswith("local."):
        if table.command is None:
            raise BridgeError(f"conversation.tools.{name}.command: missing", source=where)
        remote = source.split(".", 1)[1] if "." in source else ""
        return ToolConfig(
            name,
            "local",
            where,
            command=parse_command(table.command, source=where),
            remote_name=remote,
        )
    if source == "mcp" or source.startswith("mcp."):
        parts = source.split(".", 2)
        server_name = parts[1] if len(parts) > 1 else None
        if server_name is None:
            if len(ws.servers) != 1:
                raise BridgeError(
                    f"tool {name!r}: source {source!r} does not name its MCP server", source=where
                )
            server_name = next(iter(ws.servers))
        remote = parts[2] if len(parts) > 2 else name
        return ToolConfig(
            name, "mcp", where, server=ws.server(server_name, source=where), remote_name=remote
        )
    if source == "builtin" or source.startswith("builtin"):
        raise BridgeError(f"tool {name!r} is a JP builtin and cannot run outside JP", source=where)
    raise BridgeError(f"tool {name!r}: unknown source {source!r}", source=where)


def _read_toml(path: Path) -> dict[str, Any]:
    return read_toml(path, lambda reason: BridgeError(reason, source=str(path)))


def _merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    for key, value in top.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = dict(value) if isinstance(value, Mapping) else value
    return base


def _extends(doc: Mapping[str, Any], directory: Path, path: Path) -> list[Path]:
    value = doc.get("extends", [])
    patterns = [value] if isinstance(value, str) else value
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise BridgeError("extends: expected a string or a list of glob strings", source=str(path))
    found: list[Path] = []
    for pattern in patterns:
        matches = (
            sorted(directory.glob(pattern)) if not Path(pattern).is_absolute() else [Path(pattern)]
        )
        found += [m for m in matches if m.is_file()]
    return found


def _layer(path: Path, seen: set[Path], ws: Workspace) -> dict[str, Any]:
    """A file with everything it extends merged beneath it."""
    resolved = path.resolve()
    if resolved in seen:
        return {}
    seen.add(resolved)
    doc = _read_toml(path)
    merged: dict[str, Any] = {}
    for extended in _extends(doc, path.parent, path):
        _merge(merged, _layer(extended, seen, ws))
    _note_origins(doc, path, ws)
    return _merge(merged, {k: v for k, v in doc.items() if k != "extends"})


def _note_origins(doc: Mapping[str, Any], path: Path, ws: Workspace) -> None:
    tools = (
        doc.get("conversation", {}).get("tools", {})
        if isinstance(doc.get("conversation"), Mapping)
        else {}
    )
    for name in tools if isinstance(tools, Mapping) else ():
        ws.origins[f"tool:{name}"] = str(path)
    providers = doc.get("providers", {})
    servers = providers.get("mcp", {}) if isinstance(providers, Mapping) else {}
    for name in servers if isinstance(servers, Mapping) else ():
        ws.origins[f"server:{name}"] = str(path)


def load_workspace(directory: Path) -> Workspace:
    """The workspace at or above `directory` (`files.workspace.find_workspace`), its
    config merged in JP's precedence."""
    found = find_workspace(directory)
    if found is None:
        raise BridgeError("no .jp/ directory here or in any parent", source=str(directory))
    root = found.resolve()
    jp = root / JP_DIR
    ws = Workspace(root=root)
    seen: set[Path] = set()
    config = jp / "config.toml"
    top = _read_toml(config) if config.is_file() else {}
    merged: dict[str, Any] = {}
    for extended in _extends(top, jp, config):
        _merge(merged, _layer(extended, seen, ws))
    for path in sorted((jp / "mcp" / "tools").glob("**/*.toml")):
        _merge(merged, _layer(path, seen, ws))
    if config.is_file():
        _merge(merged, _layer(config, seen, ws))
    conversation = merged.get("conversation", {})
    tools = conversation.get("tools", {}) if isinstance(conversation, Mapping) else {}
    providers = merged.get("providers", {})
    servers = providers.get("mcp", {}) if isinstance(providers, Mapping) else {}
    ws.tools = (
        {k: v for k, v in tools.items() if isinstance(v, dict)}
        if isinstance(tools, Mapping)
        else {}
    )
    ws.servers = (
        {k: v for k, v in servers.items() if isinstance(v, dict)}
        if isinstance(servers, Mapping)
        else {}
    )
    ws.workspace_id = workspace_id(jp)
    return ws
