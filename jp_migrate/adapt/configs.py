"""Route a workspace's tools through the adapters by editing their JP configs (RFD D08, SPEC §1).

Which file to edit: JP's precedence (`bridge.config`): the files `.jp/config.toml`
extends (recursively), then `.jp/mcp/tools/**/*.toml`, then `.jp/config.toml`;
the last file that sets a tool's `command` (or a server's `command`) is the one
JP obeys, so that is the one edited. tomlkit keeps everything else as written.

Each edited value carries a marker in its inline comment: the value as it was
written (TOML source) and a digest of what the adapter wrote. That is what
`undo` restores, and how a value changed by hand since is recognised and left
alone without `force` (RFD D08's conflict rule).
"""

from __future__ import annotations

import hashlib
import json
import shlex
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import tomlkit
from tomlkit.items import InlineTable, Item, Table

from jp_migrate.errors import JpMigrateError
from jp_migrate.tomlfile import read_toml

MARKER = "jp-migrate adapt:"
Action = Literal["adapt", "undo"]
Status = Literal["changed", "unchanged", "conflict", "skipped"]


class ConfigError(JpMigrateError):
    """A config file that cannot be read, parsed or edited: names the file."""


@dataclass(frozen=True)
class Target:
    """A tool (by its `[conversation.tools.<name>]`) or a server (`[providers.mcp.<name>]`)."""

    kind: Literal["tool", "server"]
    name: str


@dataclass
class Change:
    target: Target
    path: Path
    status: Status
    message: str


@dataclass
class Edited:
    """One config file: its text before, after, and what changed in it."""

    path: Path
    before: str
    after: str
    changes: list[Change] = field(default_factory=list)


# ── which files, in JP's precedence (lowest first) ──


def _extends(doc: Mapping[str, Any], path: Path) -> list[Path]:
    value = doc.get("extends", [])
    patterns = [value] if isinstance(value, str) else value
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise ConfigError(f"{path}: extends must be a string or a list of glob strings")
    found: list[Path] = []
    for pattern in patterns:
        matches = (
            sorted(path.parent.glob(pattern))
            if not Path(pattern).is_absolute()
            else [Path(pattern)]
        )
        found += [m for m in matches if m.is_file()]
    return found


def _read(path: Path) -> dict[str, Any]:
    return read_toml(path, lambda reason: ConfigError(f"{path}: {reason}"))


def _layer(path: Path, seen: set[Path], order: list[Path]) -> None:
    resolved = path.resolve()
    if resolved in seen:
        return
    seen.add(resolved)
    doc = _read(path)
    for extended in _extends(doc, path):
        _layer(extended, seen, order)
    order.append(path)


def config_files(root: Path) -> list[Path]:
    """The workspace's JP config files, lowest precedence first (as `bridge.config` merges them)."""
    jp = root / ".jp"
    config = jp / "config.toml"
    seen: set[Path] = set()
    order: list[Path] = []
    top = _read(config) if config.is_file() else {}
    for extended in _extends(top, config):
        _layer(extended, seen, order)
    for path in sorted((jp / "mcp" / "tools").glob("**/*.toml")):
        _layer(path, seen, order)
    if config.is_file():
        _layer(config, seen, order)
    return order


def _table(doc: Mapping[str, Any], target: Target) -> Any:
    keys = ("conversation", "tools") if target.kind == "tool" else ("providers", "mcp")
    node: Any = doc
    for key in (*keys, target.name):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node if isinstance(node, Mapping) else None


def defining_file(files: Sequence[Path], target: Target) -> Path | None:
    """The file whose `command` for `target` JP obeys (the last to set it), or None."""
    found = None
    for path in files:
        table = _table(_read(path), target)
        if table is not None and "command" in table:
            found = path
    return found


def tool_names(files: Sequence[Path]) -> dict[str, Path]:
    """Every local tool with a command, and the file that sets it."""
    names: dict[str, Path] = {}
    for path in files:
        doc = _read(path)
        conversation = doc.get("conversation")
        tools = conversation.get("tools") if isinstance(conversation, Mapping) else None
        for name, table in (tools or {}).items() if isinstance(tools, Mapping) else ():
            if isinstance(table, Mapping) and "command" in table:
                source = table.get("source", "local")
                if isinstance(source, str) and (source == "local" or source.startswith("local.")):
                    names[name] = path
    return names


def original_command(files: Sequence[Path], target: Target) -> Any | None:
    """The `command` the adapter replaced for a tool it adapted (from its marker), else None."""
    path = defining_file(files, target)
    if path is None:
        return None
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8"))
        item = _toml_table(doc, target).item("command")
        if isinstance(item, Table):  # a `[….command]` table: the marker is on its program
            marker = _marker(item.item("program"))
            was = marker.get("was") if marker is not None else None
            if not isinstance(was, dict) or not isinstance(was.get("program"), str):
                return None
            command = {**item.unwrap(), "program": _value(was["program"]).unwrap()}
            if isinstance(was.get("args"), str):
                command["args"] = _value(was["args"]).unwrap()
            return command
        marker = _marker(item)
        was = marker.get("was") if marker is not None else None
        return _value(was).unwrap() if isinstance(was, str) else None
    except Exception:  # noqa: BLE001 - a marker that does not read back names no command
        return None


# ── the edit of one value ──


def _digest(*sources: str) -> str:
    return hashlib.sha256("\n".join(sources).encode("utf-8")).hexdigest()[:16]


def _marker(item: Item) -> dict[str, Any] | None:
    comment = item.trivia.comment
    at = comment.find(MARKER)
    if at < 0:
        return None
    try:
        marker = json.loads(comment[at + len(MARKER) :])
    except ValueError:
        return None
    return marker if isinstance(marker, dict) else None


def _trivia(item: Item) -> str:
    """A value's comment with the blanks before it, as it was written."""
    return item.trivia.comment_ws + item.trivia.comment if item.trivia.comment else ""


def _mark(was: Any, comment: str, wrote: str) -> str:
    """The marker comment: the value replaced (TOML source), its comment, a digest of ours."""
    record = {"was": was, "comment": comment, "wrote": wrote}
    return f"# {MARKER} {json.dumps(record, ensure_ascii=False, separators=(',', ':'))}"


def _value(source: str) -> Item:
    """A TOML value from its source text, formatting kept."""
    return tomlkit.parse(f"x = {source}\n").item("x")


def _put(table: Any, key: str, item: Item, comment: str) -> None:
    """Set `key` to `item` with exactly `comment`, the blanks before it included (tomlkit
    keeps a replaced value's comment otherwise)."""
    table[key] = item
    placed = table.item(key)
    text = comment.lstrip(" \t")
    placed.trivia.comment = text
    placed.trivia.comment_ws = (comment[: len(comment) - len(text)] or " ") if text else ""


def _runs_adapter(value: Any, adapter: Sequence[str], *more: str) -> bool:
    """Whether a command (string or table), or a server's command and arguments, already
    runs the adapter: it is never wrapped twice."""
    head = [*adapter, "adapt", *more]
    if isinstance(value, str):
        try:
            return shlex.split(value)[: len(head)] == head
        except ValueError:
            return False
    if isinstance(value, Mapping):
        program = value.get("program")
        if value.get("shell") is True and isinstance(program, str):
            try:
                return shlex.split(program)[: len(head)] == head
            except ValueError:
                return False
        words = [program, *list(value.get("args") or [])]
        return words[: len(head)] == head
    return False


def _adapted_command(command: Any, adapter: Sequence[str]) -> Item | str:
    """A tool's `command` behind `adapt`, or why it cannot be (a str)."""
    head = [*adapter, "adapt", "--name", "{{tool.name}}", "--"]
    if isinstance(command, str):
        # JP splits the string into words, then renders each: the tool's own words follow.
        words = " ".join(shlex.quote(w) for w in adapter)
        return tomlkit.string(f"{words} adapt --name '{{{{tool.name}}}}' -- {command}")
    if isinstance(command, InlineTable):
        program = command.get("program")
        args = list(command.get("args", []))
        if not isinstance(program, str):
            return "command.program is not a string"
        if command.get("shell", False) is True:
            # JP runs `sh -c "<program> <quoted args>"`; "$@" quotes the args the same way.
            argv = [*head[1:], "sh", "-c", f'{program} "$@"', "sh", *args]
        else:
            argv = [*head[1:], program, *args]
        table = tomlkit.inline_table()
        table["program"] = head[0]
        table["args"] = argv
        return table
    return "command is neither a string nor a table"


def _adapted_table(command: Table, adapter: Sequence[str]) -> dict[str, Item] | str:
    """The keys of a `[….command]` table to change to run it behind `adapt` (the table,
    its other keys and its layout stay), or why it cannot be (a str)."""
    program = command.get("program")
    if not isinstance(program, str):
        return "command.program is not a string"
    words = " ".join(shlex.quote(w) for w in adapter)
    if command.get("shell", False) is True:
        # JP runs `sh -c "<program> <quoted args>"`: the adapter is that program's first
        # words, and runs the old program the same way ("$@" quotes the args alike).
        inner = shlex.quote(f'{program} "$@"')
        wrapped = f"{words} adapt --name '{{{{tool.name}}}}' -- sh -c {inner} sh"
        return {"program": tomlkit.string(wrapped)}
    args = tomlkit.array()
    args.extend([*adapter[1:], "adapt", "--name", "{{tool.name}}", "--", program])
    args.extend(list(command.get("args", [])))
    return {"program": tomlkit.string(adapter[0]), "args": args}


@dataclass(frozen=True)
class Options:
    action: Action = "adapt"
    force: bool = False
    adapter: tuple[str, ...] = ("jp-migrate",)


def _edit_tool(table: Table, target: Target, options: Options) -> tuple[Status, str]:
    item = table.item("command")
    if isinstance(item, Table):  # `[….command]`: its program and args, the marker on program
        return _edit_values(
            item,
            ("program", "args"),
            options,
            lambda: _runs_adapter(item, options.adapter),
            lambda: _adapted_table(item, options.adapter),
        )

    def adapted() -> dict[str, Item] | str:
        new = _adapted_command(table["command"], options.adapter)
        return {"command": new} if isinstance(new, Item) else new

    return _edit_values(
        table,
        ("command",),
        options,
        lambda: _runs_adapter(table["command"], options.adapter),
        adapted,
    )


def _edit_server(table: Table, target: Target, options: Options) -> tuple[Status, str]:
    def words() -> dict[str, Any]:
        return {"program": table.get("command"), "args": table.get("arguments", [])}

    def adapted() -> dict[str, Item] | str:
        command, args = words().values()
        if not isinstance(command, str) or not isinstance(args, list):
            return "command must be a string and arguments a list"
        new_args = tomlkit.array()
        new_args.extend([*options.adapter[1:], "adapt", "--mcp", "--", command, *map(str, args)])
        return {"command": tomlkit.string(options.adapter[0]), "arguments": new_args}

    return _edit_values(
        table,
        ("command", "arguments"),
        options,
        lambda: _runs_adapter(words(), options.adapter, "--mcp"),
        adapted,
    )


def _sources(table: Table, keys: Sequence[str]) -> list[str]:
    return [table.item(k).as_string() if k in table else "" for k in keys]


def _edit_values(
    table: Table,
    keys: tuple[str, ...],
    options: Options,
    runs_adapter: Callable[[], bool],
    adapted: Callable[[], dict[str, Item] | str],
) -> tuple[Status, str]:
    """Adapt (or undo) the values `keys` of `table` together. The marker, on the first,
    records each as written (one value: its source; several: a table of them, None for
    one that was absent) and a digest of them all as the adapter left them."""
    first = keys[0]
    marker = _marker(table.item(first)) if first in table else None
    current = _sources(table, keys)
    if marker is not None:
        if marker.get("wrote") != _digest(*current) and not options.force:
            return "conflict", "changed by hand since it was adapted: left alone (--force)"
        if options.action == "adapt" and marker.get("wrote") == _digest(*current):
            return "unchanged", "already adapted"
        was = marker.get("was")
        if options.action == "undo":
            return _restore(table, keys, was, str(marker.get("comment") or ""))
        if runs_adapter():  # --force: ours, edited by hand
            comment = _mark(was, marker.get("comment") or "", _digest(*current))
            table.item(first).trivia.comment = comment
            return "changed", "changed by hand since it was adapted: marked as it is now (--force)"
    if options.action == "undo":
        return "unchanged", "not adapted"
    if runs_adapter():
        return "unchanged", "already runs the adapter (no marker: --undo cannot restore it)"
    new = adapted()
    if isinstance(new, str):
        return "skipped", new
    was: Any = current[0]
    if len(keys) > 1:
        was = {k: (source if k in table else None) for k, source in zip(keys, current)}
    for key in keys[1:]:
        if key in new:
            table[key] = new[key]
    wrote = _digest(new[first].as_string(), *_sources(table, keys)[1:])
    _put(table, first, new[first], _mark(was, _trivia(table.item(first)), wrote))
    return "changed", "adapted"


def _restore(table: Table, keys: tuple[str, ...], was: Any, comment: str) -> tuple[Status, str]:
    """Put back the values a marker recorded (`was`), the first with its old comment."""
    sources = {keys[0]: was} if len(keys) == 1 else was
    if not isinstance(sources, dict) or not isinstance(sources.get(keys[0]), str):
        return "conflict", "its adapt marker is damaged: left alone"
    for key in keys[1:]:
        if isinstance(sources.get(key), str):
            table[key] = _value(sources[key])
        elif key in table:
            del table[key]
    _put(table, keys[0], _value(sources[keys[0]]), comment)
    return "changed", "restored"


def edit(
    targets: Sequence[Target], files: Sequence[Path], options: Options
) -> tuple[list[Edited], list[Change]]:
    """The edits for `targets` (files untouched): each edited file, and every target's outcome.

    A target no file defines is a ConfigError.
    """
    by_file: dict[Path, list[Target]] = {}
    for target in targets:
        path = defining_file(files, target)
        if path is None:
            what = "tool" if target.kind == "tool" else "MCP server"
            raise ConfigError(f"no {what} named {target.name!r} with a command in the config")
        by_file.setdefault(path, []).append(target)
    edited: list[Edited] = []
    changes: list[Change] = []
    for path, wanted in by_file.items():
        before = path.read_text(encoding="utf-8")
        try:
            doc = tomlkit.parse(before)
        except Exception as exc:  # noqa: BLE001 - tomlkit's parse errors share no base class
            raise ConfigError(f"{path}: invalid TOML: {exc}") from None
        result = Edited(path, before, before)
        for target in wanted:
            table = _toml_table(doc, target)
            edit_one = _edit_tool if target.kind == "tool" else _edit_server
            status, message = edit_one(table, target, options)
            result.changes.append(Change(target, path, status, message))
        result.after = doc.as_string()
        try:  # what is written must read back as TOML, whatever tomlkit made of an odd file
            tomllib.loads(result.after)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(
                f"{path}: the edit would not be valid TOML ({exc}): left alone"
            ) from None
        changes += result.changes
        if result.after != before:
            edited.append(result)
    return edited, changes


def _toml_table(doc: Any, target: Target) -> Table:
    keys = ("conversation", "tools") if target.kind == "tool" else ("providers", "mcp")
    node = doc
    for key in (*keys, target.name):
        node = node[key]
    return node
