"""`jp-migrate adapt --config [PATH]`: choose the tools, edit their configs, say what changed.

Exit codes: 0 done (or nothing to do), 1 `--check`/`--diff` found something to
change, or a value changed by hand was left alone; 2 bad usage or a config that
cannot be read.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from jp_migrate.adapt.configs import (
    Change,
    ConfigError,
    Edited,
    Options,
    Target,
    config_files,
    edit,
)
from jp_migrate.visible import line


def _say(text: str, *, err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    stream.write(line(text) + "\n")


def _unmigratable(root: Path, files: Sequence[Path], undo: bool) -> list[Target]:
    """The local tools the codemod cannot migrate, each named with why. A tool already
    behind the adapter is judged by the command it replaced (so `--undo` undoes exactly
    what `--unmigratable` did)."""
    from jp_migrate.adapt.configs import original_command
    from jp_migrate.adapt.unmigratable import unmigratable
    from jp_migrate.bridge.command import CommandSpec, parse_command
    from jp_migrate.bridge.config import load_workspace

    ws = load_workspace(root)
    commands: dict[str, CommandSpec] = {}
    for name in sorted(ws.tools):
        raw = ws.tools[name]
        source = raw.get("source", "local")
        if "command" not in raw or not (source == "local" or str(source).startswith("local.")):
            continue
        was = original_command(files, Target("tool", name))
        command = parse_command(was) if was is not None else ws.tool(name).command
        assert command is not None
        commands[name] = command
    reasons = unmigratable(commands, root)
    if not undo:
        for name, reason in reasons.items():
            _say(f"tool {name!r}: needs the adapter: {reason}")
    return [Target("tool", name) for name in reasons]


def _show(change: Change, root: Path, dry: bool) -> None:
    what = "tool" if change.target.kind == "tool" else "MCP server"
    where = os.path.relpath(change.path, root)
    if change.status == "error":  # the file could not be edited: on stderr, exit 2
        _say(f"error: {where}: {what} {change.target.name!r}: {change.message}", err=True)
        return
    note = " (not written)" if dry and change.status == "changed" else ""
    _say(f"{where}: {what} {change.target.name!r}: {change.message}{note}")


def run_config(
    path: Path,
    *,
    tools: Sequence[str],
    servers: Sequence[str],
    unmigratable: bool,
    check: bool,
    diff: bool,
    undo: bool,
    force: bool,
    adapter: str,
) -> int:
    from jp_migrate.codemod.api import unified_diff
    from jp_migrate.errors import JpMigrateError
    from jp_migrate.files.workspace import workspace_root

    try:
        root = workspace_root(path).resolve()
        adapter_words = tuple(shlex.split(adapter))
        if not adapter_words:
            raise ConfigError("--adapter-command is empty")
        files = config_files(root)
        targets = [Target("tool", name) for name in tools]
        targets += [Target("server", name) for name in servers]
        if unmigratable:
            targets += [t for t in _unmigratable(root, files, undo) if t not in targets]
        if not targets:
            if unmigratable:
                _say("no tool needs the adapter")
                return 0
            raise ConfigError("name what to adapt: --tool NAME, --server NAME or --unmigratable")
        options = Options("undo" if undo else "adapt", force, adapter_words)
        edited, changes = edit(targets, files, options, root)
    except (JpMigrateError, ValueError) as exc:
        _say(f"error: {exc}", err=True)
        return 2
    for change in changes:
        _show(change, root, check or diff)
    # A value changed by hand left alone, or a tool that cannot be adapted: said, and exit 1.
    conflicts = any(change.status in ("conflict", "skipped") for change in changes)
    failed = any(change.status == "error" for change in changes)
    if diff:
        for result in edited:
            sys.stdout.write(
                unified_diff(os.path.relpath(result.path), result.before, result.after)
            )
    if check or diff:
        return 2 if failed else 1 if edited or conflicts else 0
    failed = not _apply(edited, root) or failed
    return 2 if failed else 1 if conflicts else 0


def _apply(edited: Sequence[Edited], root: Path) -> bool:
    """Write every edited file (each only if unchanged since it was read); False when one
    could not be written (said, one line each; the others are still written)."""
    from jp_migrate.errors import JpMigrateError
    from jp_migrate.files import edit
    from jp_migrate.files.workspace import Boundary

    done = True
    for result in edited:
        try:
            edit.replace(result.snapshot, result.data(), Boundary.of(root))
        except JpMigrateError as exc:  # changed meanwhile, or another run writing it
            _say(f"error: {exc}", err=True)
            done = False
        except OSError as exc:
            _say(f"error: {result.path}: cannot write: {exc.strerror or exc}", err=True)
            done = False
    return done
