"""The verify step of `check`: replay the configured cases before and after migration.

Cases name their tool (`"tool": "…"` on a line, else `[verify] tool`). For a
tool of the workspace, the control is the tool as it is and the candidate the
same tool in a scratch copy of the workspace whose tool sources the codemod
has rewritten, so `check` still writes nothing of the user's. A tool listed in
`[verify.control]` is instead compared with the differently named control tool
given there (an MCP server's transitional twin, say). The control side runs in a
scratch copy of the workspace as it is: tools' side effects (files they write,
`__pycache__`) never reach the user's tree.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from jp_migrate.bridge.verify import (
    Case,
    Target,
    Trial,
    load_cases,
    scratch_workspace,
    verify_trials,
)
from jp_migrate.ci.config import CheckConfig
from jp_migrate.ci.paths import shown
from jp_migrate.codemod import ToolsOptions, discover_sources, migrate_tools
from jp_migrate.contract.report import VerifyCase
from jp_migrate.errors import JpMigrateError

DEFAULT_TIMEOUT = 60.0  # seconds per tool run: a hung tool must not hang CI


def _inside(path: Path, root: Path) -> Path:
    """`path` relative to `root`; its own name is not followed (a symlinked tool is copied
    as a link, and is where the link is)."""
    absolute = Path(os.path.abspath(path))
    try:
        return (absolute.parent.resolve() / absolute.name).relative_to(root)
    except ValueError:
        raise JpMigrateError(
            f"{path}: tool sources must lie inside the workspace {root} to verify them"
        ) from None


@contextmanager
def migrated_copy(config: CheckConfig, workspace: Path) -> Iterator[Path]:
    """A scratch copy of `workspace` with its tool sources rewritten by the codemod."""
    with scratch_workspace(workspace) as copy:
        # The files the tools step looks at, found in the workspace itself (its .gitignore
        # files, `exclude` from where it was written), then rewritten in the copy. A source
        # the codemod cannot read or parse stays as it is there: the tools step reports it
        # (by the user's path), and the cases still run.
        for source in config.sources:
            _inside(source, workspace)  # a source outside the workspace is an error
        found = discover_sources(list(config.sources), config.exclude, config.exclude_base)
        scratch = copy.parent.resolve()  # the copy itself, when $TMPDIR is in the workspace
        copies = [
            _own_file(copy / _inside(p, workspace), p)
            for p in found
            if not p.resolve().is_relative_to(scratch)
        ]
        migrate_tools(copies, ToolsOptions(write=True))
        yield copy


def _own_file(path: Path, original: Path) -> Path:
    """`path` in the copy as a writable file of its own: a symlink (which the codemod writes
    through, perhaps to the user's own file) becomes a copy of what `original` points to,
    and a read-only original's copy is made writable so the rewrite is not refused."""
    if path.is_symlink():
        path.unlink()
        shutil.copy2(original.resolve(), path)
    path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return path


def _groups(cases: Sequence[Case], default_tool: str | None) -> dict[str, list[tuple[int, Case]]]:
    """Cases by the tool they call, each with its position in the cases file."""
    groups: dict[str, list[tuple[int, Case]]] = {}
    for index, case in enumerate(cases):
        tool = case.tool or default_tool
        if tool is None:
            raise JpMigrateError(
                f'{case.origin}: the case names no tool (add "tool" to it, or set [verify] tool)'
            )
        groups.setdefault(tool, []).append((index, case))
    return groups


def _wanted(
    config: CheckConfig, groups: dict[str, list[tuple[int, Case]]]
) -> dict[str, list[tuple[int, Case]]]:
    """The groups of the tools `[verify] tools` names (all when it names none)."""
    wanted = config.verify.tools
    if wanted is None:
        return groups
    unknown = sorted(set(wanted) - set(groups))
    if unknown:
        raise JpMigrateError(f"{config.cases}: no cases for [verify] tools {', '.join(unknown)}")
    return {tool: groups[tool] for tool in wanted}


def verify_step(config: CheckConfig, workspace: Path, root: Path) -> list[VerifyCase]:
    """Every configured case through its control and candidate, compared (bridge.verify).

    Cases are named by the cases file's path relative to `root` (the run root),
    so reports do not depend on where the checkout lives.
    """
    assert config.cases is not None
    cases_file = Path(shown(str(config.cases), root))
    workspace = workspace.resolve()
    groups = _wanted(config, _groups(load_cases(cases_file), config.verify.tool))
    timeout = config.verify.timeout or DEFAULT_TIMEOUT
    with ExitStack() as stack:
        # The control runs in a copy of the workspace as it is, the candidate in a copy
        # the codemod migrated (or, for a `[verify.control]` twin, beside it). The
        # migrated one is made first: its codemod must not find the other ($TMPDIR may
        # lie inside the workspace).
        twins = {tool: config.verify.control.get(tool) for tool in groups}
        copy = None
        if any(twin is None for twin in twins.values()):
            copy = stack.enter_context(migrated_copy(config, workspace))
        plain = stack.enter_context(scratch_workspace(workspace))
        trials: list[Trial] = []
        for tool, numbered in sorted(groups.items()):
            candidate = Target.from_workspace(workspace, tool)
            twin = twins[tool]
            if twin is not None:
                control = Target.from_workspace(workspace, twin).named(candidate.call_name)
                control, candidate = control.relocated(plain), candidate.relocated(plain)
            else:
                assert copy is not None
                control, candidate = candidate.relocated(plain), candidate.relocated(copy)
            trials += [Trial(control, candidate, case, index) for index, case in numbered]
        # Cases of every tool share one pool of workers, and each worker one MCP server a side.
        results = verify_trials(trials, jobs=max(1, config.jobs), timeout=timeout)
    return sorted(results, key=lambda r: r.index)
