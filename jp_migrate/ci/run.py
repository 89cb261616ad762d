"""Run the dry runs `check` is made of and gather one `Report` (no printing, no writes).

Each capability is called through its public API only (store.api, codemod.api,
bridge.verify). A capability that is missing or fails for a usage reason is a
JpMigrateError (exit 2), never an empty section: "nothing to do" must mean
nothing was found, not that nothing ran.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from jp_migrate.ci.config import CheckConfig
from jp_migrate.contract.report import Report, StoreFile, ToolFile
from jp_migrate.errors import JpMigrateError
from jp_migrate.report import compute_totals

T = TypeVar("T")


def capability(module: str, what: str) -> ModuleType:
    """Import a capability's API module, or say plainly that it is missing."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name):
            raise JpMigrateError(
                f"the {what} is not available in this installation ({module} is missing)"
            ) from None
        raise


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


def _step(name: str, hint: str, call: Callable[[], T]) -> T:
    try:
        return call()
    except JpMigrateError as exc:
        raise JpMigrateError(f"{name}: {exc}{hint}") from None


def _named(paths: tuple[Path, ...], root: Path) -> list[Path]:
    """Paths as the capabilities should show them: relative to the run root (the current
    directory) when inside it, so paths in diffs and reports do not depend on the checkout."""
    return [Path(shown(str(p), root)) for p in paths]


def store_dry_run(config: CheckConfig, root: Path) -> list[StoreFile]:
    api = capability("jp_migrate.store.api", "store migration")
    options = api.StoreOptions(
        check=True,
        diff=config.diff,
        encoding=config.encoding,
        rules=tuple(config.rules),
        exclude_archived=config.exclude_archived,
        user_local=False,  # a gate judges the checkout, never a machine's own JP data
        jobs=config.jobs,
    )
    hint = " (set `store = false` in the config, or pass --no-store, to skip the store)"
    files: list[StoreFile] = _step(
        "store dry run", hint, lambda: api.migrate_stores(_named(config.stores, root), options)
    )
    # A path that names no store (not a conversation of one) is an error with the same hint.
    return [
        f.model_copy(update={"message": f"store dry run: {f.message}{hint}"})
        if f.status == "error" and not f.conversation
        else f
        for f in files
    ]


def tools_dry_run(config: CheckConfig, root: Path) -> list[ToolFile]:
    api = capability("jp_migrate.codemod.api", "tool codemod")
    options = api.ToolsOptions(
        write=False,
        diff=config.diff,
        exclude=tuple(config.exclude),
        exclude_base=config.exclude_base,
        jobs=config.jobs,
    )
    hint = " (set `tools = false` in the config, or pass --no-tools, to skip tool sources)"
    files: list[ToolFile] = _step(
        "codemod dry run", hint, lambda: api.migrate_tools(_named(config.sources, root), options)
    )
    return files


def run_check(config: CheckConfig, root: Path, workspace: Path, *, timings: bool = False) -> Report:
    """The report of every enabled dry run, paths relative to `root`, exit code filled in.

    `root` must be the current directory: relative paths are handed to the capabilities.

    `workspace` is the directory whose JP config the verify cases run against.
    """
    clock: dict[str, float] = {}
    store = tools = cases = None
    if config.store:
        started = time.perf_counter()
        store = [
            f.model_copy(update={"path": shown(f.path, root)}) for f in store_dry_run(config, root)
        ]
        clock["store"] = time.perf_counter() - started
    if config.tools:
        started = time.perf_counter()
        tools = [
            f.model_copy(update={"path": shown(f.path, root)}) for f in tools_dry_run(config, root)
        ]
        clock["tools"] = time.perf_counter() - started
    if config.cases is not None:
        from jp_migrate.ci.verify import verify_step

        started = time.perf_counter()
        cases = verify_step(config, workspace, root)
        clock["verify"] = time.perf_counter() - started
    report = Report(
        command="check",
        dry_run=True,
        store=store,
        tools=tools,
        verify=cases,
        timings={k: round(v, 3) for k, v in clock.items()} if timings else None,
    )
    return report.model_copy(update={"exit_code": exit_code(report)})


def exit_code(report: Report) -> int:
    """0 nothing to migrate; 1 something would change, a mismatch or an unhandled site; 2 errors.

    A store file that was skipped (locked by a running jp, an unsupported layout)
    could not be checked, so it fails the gate like an error, as in
    `jp-migrate conversations --check`.
    """
    t = compute_totals(report)
    if t.errors or any(f.status == "skipped" for f in report.store or []):
        return 2
    if t.changed or t.unhandled_sites or t.mismatches:
        return 1
    return 0
