"""Which local tools the codemod cannot carry to RFD 058 (and so need the adapter).

A tool is migratable when its command runs a Python file (`python3 tool.py …`,
or a script with a Python shebang) and the codemod leaves no site of that file
unhandled. Anything else is routed through the adapter: a program in another
language, a Python file the codemod refuses or cannot read, a program that is
a template, or one whose source is not found (the adapter is safe for all).
"""

from __future__ import annotations

import re
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


def why_unmigratable(command: CommandSpec, root: Path) -> str | None:
    """Why the codemod cannot migrate this tool, or None when it can."""
    from jp_migrate.codemod.api import ToolsOptions, migrate_file

    source = python_source(command, root)
    if source is None:
        return f"{command.program!r} is not a Python file the codemod can find"
    result = migrate_file(source, ToolsOptions(write=False))
    if result.status == "error":
        return f"{source.name}: {result.message}"
    refused = [site for site in result.sites if site.action == "unhandled"]
    if refused:
        first = refused[0]
        return f"{source.name}:{first.line}: the codemod refuses it ({first.reason or first.rule})"
    return None
