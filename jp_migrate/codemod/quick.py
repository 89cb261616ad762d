"""Files the pre-check rules out, judged without libcst or the report models.

`tools --check` in a pre-commit hook mostly sees files with no Outcome in them:
those get their verdict here, and when no file is left over the codemod proper
(libcst, pydantic) never loads. A file this cannot judge for certain (one that
may hold an Outcome, cannot be read or decoded, or does not compile) is left to
the codemod.
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


def triage(
    paths: Sequence[Path], exclude: Sequence[str], *, jobs: int = 1
) -> tuple[list[QuickFile], list[Path]]:
    """The Python files under `paths`: the verdicts of those judged here, and the files
    left to the codemod (both in path order). With `jobs` > 1 every file is left to the
    codemod, whose workers run the same pre-check in parallel."""
    found = discover(paths, exclude)
    if jobs > 1:
        return [], found
    judged: list[QuickFile] = []
    rest: list[Path] = []
    for path in found:
        verdict = _judge(path)
        if verdict is None:
            rest.append(path)
        else:
            judged.append(verdict)
    return judged, rest
