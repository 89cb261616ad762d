"""Which local tools the codemod cannot carry to RFD 058 (and so need the adapter).

A tool is migratable when its command runs a Python file (`python3 tool.py …`,
or a script with a Python shebang) and the codemod leaves no site unhandled in
that file or in a sibling module it imports, the files of each tool's directory
judged together as `jp-migrate tools` migrates them (a tool reading another's
result migrates with it). Anything else is routed through the adapter: a
program in another language, a Python file the codemod refuses or cannot read,
a program that is a template, or one whose source is not found (the adapter is
safe for all).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from jp_migrate.bridge.command import CommandSpec

_PYTHON = re.compile(r"python(\d+(\.\d+)*)?$")


def python_source(command: CommandSpec, root: Path) -> Path | None:
    """The Python file a command runs, or None (another language, or it cannot be told)."""
    words = [command.program, *command.args]
    if any("{{" in w or "{%" in w for w in words[:2]):
        return None
    if command.shell:
        words = command.program.split() + list(command.args)
    if not words:
        return None
    program = Path(words[0])
    if _PYTHON.match(program.name):
        script = next((w for w in words[1:] if not w.startswith("-")), None)
        if script is None or "{{" in script:
            return None
        path = root / script
        return path if path.suffix == ".py" and path.is_file() else None
    path = program if program.is_absolute() else root / program
    if path.is_file() and (path.suffix == ".py" or _python_shebang(path)):
        return path
    return None


def _python_shebang(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            first = handle.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def unmigratable(commands: Mapping[str, CommandSpec], root: Path) -> dict[str, str]:
    """Why each tool the codemod cannot migrate needs the adapter (tool name → reason)."""
    from jp_migrate.codemod.api import ToolsOptions, migrate_tools
    from jp_migrate.codemod.imports import sibling_imports
    from jp_migrate.codemod.precheck import read_source
    from jp_migrate.contract.report import ToolFile

    reasons: dict[str, str] = {}
    sources: dict[str, Path] = {}
    for name, command in commands.items():
        source = python_source(command, root)
        if source is None:
            reasons[name] = f"{command.program!r} is not a Python file the codemod can find"
        else:
            sources[name] = Path(os.path.abspath(source))
    files = sorted({f for s in sources.values() for f in s.parent.glob("*.py") if f.is_file()})
    results: dict[Path, ToolFile] = dict(
        zip(files, migrate_tools(files, ToolsOptions(write=False)), strict=True)
    )
    texts: dict[Path, str] = {}
    for f in files:
        try:
            texts[f] = read_source(f)[0]
        except (OSError, UnicodeDecodeError, LookupError):
            pass  # its result says why
    imports = sibling_imports(files, texts)

    def refused(path: Path, seen: frozenset[Path]) -> str | None:
        result = results[path]
        if result.status == "error":
            return f"{path.name}: {result.message}"
        first = next((site for site in result.sites if site.action == "unhandled"), None)
        if first is not None:
            return (
                f"{path.name}:{first.line}: the codemod refuses it ({first.reason or first.rule})"
            )
        for imported in imports.get(path, []):
            if imported.target not in seen:
                why = refused(imported.target, seen | {imported.target})
                if why is not None:
                    return f"{path.name} imports {imported.target.stem}: {why}"
        return None

    for name, source in sources.items():
        why = refused(source, frozenset({source}))
        if why is not None:
            reasons[name] = why
    return reasons
