"""Route a workspace's tools through the adapters by editing their JP configs (RFD D08, SPEC §1).

Which file to edit: JP's precedence (`bridge.config`): the files `.jp/config.toml`
extends (recursively), then `.jp/mcp/tools/**/*.toml`, then `.jp/config.toml`;
the last file that sets a tool's `command` (or a server's `command`) is the one
JP obeys, so that is the one edited. tomlkit keeps everything else as written.

Each edited value gets a marker, a comment on a line of its own just above it:
the values as they were written (TOML source) and a digest of what the adapter
wrote. That is what `undo` restores, and how a value changed by hand since is
recognised and left alone without `force` (RFD D08's conflict rule).

A marker is honoured only when it is exactly what `adapt` writes: one line,
single TOML values, and, for `undo` without `force`, values that `adapt` would
turn into exactly the command the file runs now. So a marker planted in a
repository cannot make `undo` write anything the file does not already run.

Files are read and written through `jp_migrate.files` inside the workspace:
a file outside it (an `extends` leading out) or reached through a link is
refused, one line each; bytes (CRLF, a BOM, trailing blanks) are kept.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import tomlkit
from tomlkit.container import OutOfOrderTableProxy
from tomlkit.items import Comment, InlineTable, Item, Table

from jp_migrate.errors import JpMigrateError
from jp_migrate.files import edit as files
from jp_migrate.files.workspace import JP_DIR, Boundary
from jp_migrate.tomlfile import read_toml

MARKER = "# jp-migrate adapt: "
BOM = "\ufeff"
Action = Literal["adapt", "undo"]
Status = Literal["changed", "unchanged", "conflict", "skipped", "error"]
_DIGEST = re.compile(r"[0-9a-f]{16}")


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
    snapshot: files.Snapshot
    changes: list[Change] = field(default_factory=list)

    def data(self) -> bytes:
        """`after` as the file's bytes (its BOM, when it had one, kept)."""
        bom = BOM if self.snapshot.data.startswith(BOM.encode("utf-8")) else ""
        return (bom + self.after).encode("utf-8")


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
    jp = root / JP_DIR
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


# ── the edit of one value ──


def _digest(*sources: str) -> str:
    return hashlib.sha256("\n".join(sources).encode("utf-8")).hexdigest()[:16]


def _mark(was: Any, wrote: str) -> str:
    """The marker comment: the values replaced (TOML source) and a digest of ours."""
    record = {"was": was, "wrote": wrote}
    return MARKER + json.dumps(record, ensure_ascii=True, separators=(",", ":"))


def _value(source: str) -> Any:
    """A TOML value from its source text, formatting kept."""
    return tomlkit.parse(f"x = {source}\n").item("x")


def _single_value(source: Any) -> bool:
    """Whether `source` is the TOML source of one value and nothing else (no comment, no
    table after it): what `adapt` records, read back byte for byte."""
    if not isinstance(source, str):
        return False
    text = f"x = {source}\n"
    try:
        doc = tomlkit.parse(text)
    except Exception:  # noqa: BLE001 - tomlkit's parse errors share no base class
        return False
    if list(doc) != ["x"] or doc.as_string() != text:
        return False
    item = doc.item("x")
    return isinstance(item, Item) and not item.trivia.comment and item.as_string() == source


@dataclass(frozen=True)
class Marker:
    comment: Comment  # its line, kept to rewrite or remove it
    was: dict[str, str | None]  # key → its source before adapt (None: it was absent)
    wrote: str


def _marker(container: Any, keys: tuple[str, ...]) -> Marker | str | None:
    """The marker on the line above `keys[0]`: None when there is none, a str saying why
    when one is there but is not exactly what `adapt` writes (a planted or damaged one)."""
    body = container.value.body if isinstance(container, Table) else container.body
    index = next(
        (i for i, (key, _) in enumerate(body) if key is not None and key.key == keys[0]), 0
    )
    if index == 0:
        return None
    key, item = body[index - 1]
    if key is not None or not isinstance(item, Comment):
        return None
    text = item.trivia.comment
    if not text.startswith(MARKER):
        return None
    damaged = "its adapt marker is not one jp-migrate wrote: left alone"
    try:
        record = json.loads(text[len(MARKER) :])
    except ValueError:
        return damaged
    if not isinstance(record, dict) or set(record) != {"was", "wrote"}:
        return damaged
    was, wrote = record["was"], record["wrote"]
    if _mark(was, wrote) != text or not isinstance(wrote, str) or not _DIGEST.fullmatch(wrote):
        return damaged
    sources = {keys[0]: was} if len(keys) == 1 else was
    if not isinstance(sources, dict) or set(sources) != set(keys):
        return damaged
    if not _single_value(sources[keys[0]]) or not all(
        v is None or _single_value(v) for v in sources.values()
    ):
        return damaged
    return Marker(item, sources, wrote)


def _holder(node: Any, key: str) -> Any:
    """The table that holds `key` (of a table split in the file, the part holding it)."""
    if isinstance(node, OutOfOrderTableProxy):
        parts = getattr(node, "_tables", [])
        return next((t for t in parts if key in t), None)
    return node


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


def _argv(program: str, args: Sequence[Any], shell: bool, adapter: Sequence[str]) -> list[str]:
    """The adapter's words for a `{program, args, shell}` command. JP runs a shell command
    as `sh -c "<program> <quoted args>"`; `"$@"` quotes the args the same way, so they
    stay arguments, whatever they hold."""
    head = [*adapter[1:], "adapt", "--name", "{{tool.name}}", "--"]
    if shell:
        return [*head, "sh", "-c", f'{program} "$@"', "sh", *map(str, args)]
    return [*head, program, *map(str, args)]


def _adapted_command(values: Mapping[str, Any], adapter: Sequence[str]) -> dict[str, Item] | str:
    """A tool's `command` (a string or an inline table) behind `adapt`, or why it cannot be."""
    command = values.get("command")
    if isinstance(command, str):
        # JP splits the string into words, then renders each: the tool's own words follow.
        words = " ".join(shlex.quote(w) for w in adapter)
        return {"command": tomlkit.string(f"{words} adapt --name '{{{{tool.name}}}}' -- {command}")}
    if isinstance(command, InlineTable):
        program = command.get("program")
        if not isinstance(program, str):
            return "command.program is not a string"
        shell = command.get("shell", False) is True
        table = tomlkit.inline_table()
        table["program"] = adapter[0]
        table["args"] = _argv(program, list(command.get("args", [])), shell, adapter)
        return {"command": table}
    return "command is neither a string nor a table"


def _adapted_table(values: Mapping[str, Any], adapter: Sequence[str]) -> dict[str, Item] | str:
    """The keys of a `[….command]` table that run it behind `adapt` (the table, its other
    keys and its layout stay), or why it cannot be. A shell command becomes `sh -c` run
    by the adapter, `shell = false`: its arguments are never quoted into a shell line."""
    program = values.get("program")
    if not isinstance(program, str):
        return "command.program is not a string"
    shell = values.get("shell", False) is True
    args = tomlkit.array()
    args.extend(_argv(program, list(values.get("args") or []), shell, adapter))
    new: dict[str, Item] = {"program": tomlkit.string(adapter[0]), "args": args}
    if "shell" in values:
        new["shell"] = tomlkit.item(False)
    return new


def _adapted_server(values: Mapping[str, Any], adapter: Sequence[str]) -> dict[str, Item] | str:
    command, args = values.get("command"), values.get("arguments", [])
    if not isinstance(command, str) or not isinstance(args, list):
        return "command must be a string and arguments a list"
    new_args = tomlkit.array()
    new_args.extend([*adapter[1:], "adapt", "--mcp", "--", command, *map(str, args)])
    return {"command": tomlkit.string(adapter[0]), "arguments": new_args}


@dataclass(frozen=True)
class Options:
    action: Action = "adapt"
    force: bool = False
    adapter: tuple[str, ...] = ("jp-migrate",)


@dataclass
class Rendering:
    """Markers are placed by text: a token tomlkit writes (a NUL, which TOML text never
    holds) is replaced by the marker's line once the document is rendered."""

    newline: str
    swaps: list[tuple[str, str]] = field(default_factory=list)

    def token(self, replacement: str) -> str:
        token = f"\0{len(self.swaps)}\0"
        self.swaps.append((token, replacement))
        return token

    def render(self, doc: Any) -> str:
        text: str = doc.as_string()
        for token, replacement in self.swaps:
            text = text.replace(token, replacement)
        return text


@dataclass(frozen=True)
class Values:
    """One target's values: the keys edited together (the marker above the first), how
    to adapt them, and how to tell they already run the adapter."""

    keys: tuple[str, ...]
    adapted: Callable[[Mapping[str, Any], Sequence[str]], dict[str, Item] | str]
    more: tuple[str, ...] = ()  # the adapter's words after `adapt` (`--mcp` for servers)

    def runs_adapter(self, current: Mapping[str, Any], adapter: Sequence[str]) -> bool:
        if self.keys == ("command",):
            return _runs_adapter(current.get("command"), adapter)
        if self.more:  # a server: its command and arguments as one command
            words = {"program": current.get("command"), "args": current.get("arguments", [])}
            return _runs_adapter(words, adapter, *self.more)
        return _runs_adapter(dict(current), adapter)


def _values(table: Any, target: Target) -> tuple[Any, Values] | str:
    """Where `target`'s values live (the table holding them) and what they are."""
    if target.kind == "server":
        return table, Values(("command", "arguments"), _adapted_server, ("--mcp",))
    holder = _holder(table, "command")
    if holder is None:
        return "its table is split in a way jp-migrate cannot edit: adapt it by hand"
    command = holder.item("command") if isinstance(holder, Table) else None
    if isinstance(command, Table | OutOfOrderTableProxy):
        inner = _holder(command, "program")
        if inner is None:
            return "command.program is not a string"
        return inner, Values(("program", "args", "shell"), _adapted_table)
    return holder, Values(("command",), _adapted_command)


def _current(table: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: table[k] for k in keys if k in table}


def _sources(table: Any, keys: tuple[str, ...]) -> dict[str, str | None]:
    return {k: (table.item(k).as_string() if k in table else None) for k in keys}


def _wrote(sources: Mapping[str, str | None], keys: tuple[str, ...]) -> str:
    return _digest(*(sources[k] or "" for k in keys))


def _would_write(
    was: Mapping[str, str | None], values: Values, adapter: Sequence[str]
) -> dict[str, str | None] | None:
    """The sources `adapt` would write for the values `was` (None: not adaptable)."""
    doc = tomlkit.parse("".join(f"{k} = {v}\n" for k, v in was.items() if v is not None))
    new = values.adapted({k: doc[k] for k in doc}, adapter)
    if isinstance(new, str):
        return None
    return {k: (new[k].as_string() if k in new else was[k]) for k in values.keys}


def _edit_one(
    table: Any, target: Target, options: Options, rendering: Rendering
) -> tuple[Status, str]:
    located = _values(table, target)
    if isinstance(located, str):
        return "skipped", located
    holder, values = located
    if isinstance(holder, InlineTable):
        return "skipped", "defined in an inline table: adapt it by hand (or write it as a table)"
    keys = values.keys
    if keys[0] not in holder:
        return "skipped", f"no {keys[0]} to adapt"
    marker = _marker(holder, keys)
    if isinstance(marker, str):
        return "conflict", marker
    current = _sources(holder, keys)
    if marker is not None:
        ours = marker.wrote == _wrote(current, keys)
        if not ours and not options.force:
            return "conflict", "changed by hand since it was adapted: left alone (--force)"
        if options.action == "undo":
            return _undo(holder, values, marker, current, options, rendering)
        if ours:
            return "unchanged", "already adapted"
        if values.runs_adapter(_current(holder, keys), options.adapter):  # --force: ours, edited
            marker.comment.trivia.comment = _mark(
                _recorded(marker.was, keys), _wrote(current, keys)
            )
            return "changed", "changed by hand since it was adapted: marked as it is now (--force)"
    if options.action == "undo":
        return "unchanged", "not adapted"
    if values.runs_adapter(_current(holder, keys), options.adapter):
        return "unchanged", "already runs the adapter (no marker: --undo cannot restore it)"
    new = values.adapted(_current(holder, keys), options.adapter)
    if isinstance(new, str):
        return "skipped", new
    for key in keys:
        if key in new:
            holder[key] = new[key]
    first = holder.item(keys[0])
    indent = first.trivia.indent
    mark = _mark(_recorded(current, keys), _wrote(_sources(holder, keys), keys))
    first.trivia.indent = rendering.token(indent + mark + rendering.newline) + indent
    return "changed", "adapted"


def _recorded(sources: Mapping[str, str | None], keys: tuple[str, ...]) -> Any:
    """What a marker records: one value's source, or a table of them (None: absent)."""
    return sources[keys[0]] if len(keys) == 1 else {k: sources[k] for k in keys}


def _undo(
    holder: Any,
    values: Values,
    marker: Marker,
    current: Mapping[str, str | None],
    options: Options,
    rendering: Rendering,
) -> tuple[Status, str]:
    """Put back what the marker recorded, once it is clear that `adapt` made the values
    the file holds now from exactly those (else only with --force, saying what)."""
    keys = values.keys
    if not options.force and _would_write(marker.was, values, options.adapter) != dict(current):
        return "conflict", (
            "its marker does not record what the adapter runs now (another --adapter-command?): "
            "left alone (--force restores it anyway)"
        )
    for key in keys[1:]:
        source = marker.was.get(key)
        if source is not None:
            holder[key] = _value(source)
        elif key in holder:
            del holder[key]
    holder[keys[0]] = _value(str(marker.was[keys[0]]))
    marker.comment.trivia.indent = ""
    marker.comment.trivia.trail = ""
    marker.comment.trivia.comment = rendering.token("")
    restored = ", ".join(f"{k} = {v}" for k, v in marker.was.items() if v is not None)
    return "changed", f"restored: {restored}"


def original_command(files_: Sequence[Path], target: Target) -> Any | None:
    """The `command` the adapter replaced for a tool it adapted (from its marker), else None."""
    path = defining_file(files_, target)
    if path is None:
        return None
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8").removeprefix(BOM))
        located = _values(_toml_table(doc, target), target)
        if isinstance(located, str):
            return None
        holder, values = located
        marker = _marker(holder, values.keys)
        if not isinstance(marker, Marker):
            return None
        if values.keys == ("command",):
            return _value(str(marker.was["command"])).unwrap()
        command = {k: _value(v).unwrap() for k, v in marker.was.items() if v is not None}
        return command
    except Exception:  # noqa: BLE001 - a marker that does not read back names no command
        return None


def edit(
    targets: Sequence[Target], files_: Sequence[Path], options: Options, root: Path
) -> tuple[list[Edited], list[Change]]:
    """The edits for `targets` (files untouched): each edited file, and every target's outcome.

    A target no file defines is a ConfigError. A file that cannot be edited (outside the
    workspace `root`, reached through a link, not valid TOML) gives one `error` Change per
    target in it; the other files are still edited.
    """
    by_file: dict[Path, list[Target]] = {}
    for target in targets:
        path = defining_file(files_, target)
        if path is None:
            what = "tool" if target.kind == "tool" else "MCP server"
            raise ConfigError(f"no {what} named {target.name!r} with a command in the config")
        by_file.setdefault(path, []).append(target)
    edited: list[Edited] = []
    changes: list[Change] = []
    for path, wanted in by_file.items():
        try:
            result = _edit_file(path, wanted, options, Boundary.of(root))
        except (JpMigrateError, OSError) as exc:
            reason = str(exc) if isinstance(exc, JpMigrateError) else (exc.strerror or str(exc))
            changes += [Change(t, path, "error", reason.removeprefix(f"{path}: ")) for t in wanted]
            continue
        changes += result.changes
        if result.after != result.before:
            edited.append(result)
    return edited, changes


def _edit_file(
    path: Path, wanted: Sequence[Target], options: Options, boundary: Boundary
) -> Edited:
    snapshot = files.read(path, boundary)
    try:
        before = snapshot.data.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8") from None
    try:
        doc = tomlkit.parse(before)
    except Exception as exc:  # noqa: BLE001 - tomlkit's parse errors share no base class
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    rendering = Rendering("\r\n" if "\r\n" in before else "\n")
    result = Edited(path, before, before, snapshot)
    for target in wanted:
        status, message = _edit_one(_toml_table(doc, target), target, options, rendering)
        result.changes.append(Change(target, path, status, message))
    result.after = rendering.render(doc)
    try:  # what is written must read back as TOML, whatever tomlkit made of an odd file
        tomllib.loads(result.after)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: the edit would not be valid TOML ({exc}): left alone") from None
    return result


def _toml_table(doc: Any, target: Target) -> Any:
    keys = ("conversation", "tools") if target.kind == "tool" else ("providers", "mcp")
    node = doc
    for key in (*keys, target.name):
        node = node[key]
    return node
