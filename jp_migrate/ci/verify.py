"""The verify step of `check`: replay the configured cases before and after migration.

Nothing in the user's tree is touched (`check` writes nothing): the control
runs in a scratch copy of the workspace as it is, the candidate in a scratch
copy whose tool sources the codemod has rewritten, unless `[verify] before` /
`after` name command templates to run instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jp_migrate.ci.config import CheckConfig
from jp_migrate.ci.run import capability
from jp_migrate.contract.report import VerifyCase
from jp_migrate.errors import JpMigrateError

DEFAULT_TIMEOUT = 60.0  # seconds per tool run: a hung tool must not hang CI


def _inside(path: Path, root: Path) -> Path:
    try:
        return path.resolve().relative_to(root)
    except ValueError:
        raise JpMigrateError(
            f"{path}: tool sources must lie inside the workspace {root} to verify them"
        ) from None


def _ignore(directory: str, names: list[str]) -> set[str]:
    # The conversation store and VCS data are neither run nor rewritten by tools.
    if Path(directory).name == ".jp":
        return {n for n in names if n == "conversations"}
    return {n for n in names if n in (".git", ".jp-migrate")}


@contextmanager
def migrated_copy(config: CheckConfig, workspace: Path) -> Iterator[Path]:
    """A scratch copy of `workspace` with its tool sources rewritten by the codemod."""
    api = capability("jp_migrate.codemod.api", "tool codemod")
    with tempfile.TemporaryDirectory(prefix="jp-migrate-check-") as tmp:
        copy = Path(tmp) / (workspace.name or "workspace")
        try:
            shutil.copytree(workspace, copy, symlinks=True, ignore=_ignore)
        except OSError as exc:
            raise JpMigrateError(
                f"{workspace}: cannot copy the workspace to verify it: {exc}"
            ) from None
        sources = [copy / _inside(p, workspace) for p in config.sources]
        files = api.migrate_tools(
            sources, api.ToolsOptions(write=True, exclude=tuple(config.exclude))
        )
        broken = [f for f in files if f.status == "error"]
        if broken:
            where = (
                os.path.relpath(broken[0].path, copy)
                if os.path.isabs(broken[0].path)
                else broken[0].path
            )
            raise JpMigrateError(
                f"{where}: cannot migrate a copy to verify against: {broken[0].message}"
            )
        yield copy


def _targets(config: CheckConfig, workspace: Path, candidate_root: Path | None) -> tuple[Any, Any]:
    from jp_migrate.bridge.target import Target

    tool = config.verify.tool
    name = tool or "tool"
    if config.verify.before is not None:
        before = Target.from_template(config.verify.before, name, workspace)
    elif tool is not None:
        before = Target.from_workspace(workspace, tool)
    else:
        raise JpMigrateError(
            "verify: set [verify] tool (a tool of the workspace) or before = TEMPLATE"
        )
    if config.verify.after is not None:
        after = Target.from_template(config.verify.after, name, workspace)
    elif tool is not None and candidate_root is not None:
        after = Target.from_workspace(candidate_root, tool)
    else:
        raise JpMigrateError(
            "verify: set [verify] tool (a tool of the workspace) or after = TEMPLATE"
        )
    return before, after


def verify_step(config: CheckConfig, workspace: Path) -> list[VerifyCase]:
    """Every configured case through the control and the candidate, compared (bridge.verify)."""
    api = capability("jp_migrate.bridge.verify", "before/after verification")
    assert config.cases is not None
    cases = api.load_cases(config.cases)
    workspace = workspace.resolve()
    timeout = config.verify.timeout or DEFAULT_TIMEOUT
    with _candidate(config, workspace) as candidate_root:
        before, after = _targets(config, workspace, candidate_root)
        with api.scratch_roots([before]) as (scratch_before,):
            results: list[VerifyCase] = api.verify_cases(
                scratch_before, after, cases, jobs=config.jobs, timeout=timeout
            )
    return results


@contextmanager
def _candidate(config: CheckConfig, workspace: Path) -> Iterator[Path | None]:
    if config.verify.after is not None:
        yield None
        return
    with migrated_copy(config, workspace) as copy:
        yield copy
