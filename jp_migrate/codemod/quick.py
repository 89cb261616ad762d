"""Files the pre-check rules out, judged without libcst or the report models.

`tools --check` in a pre-commit hook mostly sees files with no Outcome in them:
when every file it is given is such a file (or skipped by its marker), the
verdicts come from here and the codemod proper (libcst, pydantic) never loads.
A file this cannot judge for certain (one that may hold an Outcome, cannot be
read or decoded, or does not compile) sends the whole run to the codemod.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from jp_migrate.codemod.discover import discover
from jp_migrate.codemod.precheck import file_is_skipped, may_contain_outcome, read_source


@dataclass(frozen=True)
class QuickFile:
    """What the CLI reads of a `ToolFile`, for a file the codemod would leave as it is."""

    path: str
    status: str  # "unchanged" or "skipped"
    message: str = ""
    sites: tuple[()] = ()
    diff: None = None


def _judge(path: Path) -> QuickFile | None:
    try:
        source, _ = read_source(path)
    except (OSError, UnicodeDecodeError, LookupError):
        return None
    if "\0" in source:
        return None
    if file_is_skipped(source):
        return QuickFile(path.as_posix(), "skipped", "# jp-migrate: skip")
    if may_contain_outcome(source):
        return None
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # the codemod names the error in its own words
    return QuickFile(path.as_posix(), "unchanged")


def quick_verdicts(
    paths: Sequence[Path], exclude: Sequence[str], exclude_base: Path | None = None
) -> list[QuickFile] | None:
    """A verdict for every Python file under `paths`, or None when one needs the codemod."""
    verdicts: list[QuickFile] = []
    for path in discover(paths, exclude, exclude_base):
        verdict = _judge(path)
        if verdict is None:
            return None
        verdicts.append(verdict)
    return verdicts
