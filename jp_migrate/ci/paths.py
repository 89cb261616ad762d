"""Paths as `check` shows them: relative to the run root, so reports do not depend on the checkout."""

from __future__ import annotations

import os
from pathlib import Path


def shown(path: str, root: Path) -> str:
    """A report path relative to the run root when it lies inside it (SARIF and CI need that)."""
    p = Path(path)
    absolute = p if p.is_absolute() else Path.cwd() / p
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive (Windows)
        return path
    if relative == ".." or relative.startswith(".." + os.sep):
        return str(absolute) if p.is_absolute() else path
    return Path(relative).as_posix()


def named(paths: tuple[Path, ...], root: Path) -> list[Path]:
    """Paths as the capabilities should show them: relative to the run root (the current
    directory) when inside it, so paths in diffs and reports do not depend on the checkout."""
    return [Path(shown(str(p), root)) for p in paths]
