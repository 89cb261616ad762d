"""Run the dry runs `check` is made of and gather one `Report` (no printing, no writes).

Each capability is called through the public API a user's script would call:
`migrate_stores` (jp_migrate.store), `migrate_tools` (jp_migrate.codemod) and
`verify_trials` (jp_migrate.bridge.verify, through ci.verify). A capability that
fails for a usage reason is a JpMigrateError (exit 2), never an empty section:
"nothing to do" must mean nothing was found, not that nothing ran.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from jp_migrate.ci.config import CheckConfig
from jp_migrate.ci.paths import named, shown
from jp_migrate.ci.verify import verify_step
from jp_migrate.codemod import ToolsOptions, migrate_tools
from jp_migrate.contract.report import Report, StoreFile, ToolFile
from jp_migrate.errors import JpMigrateError
from jp_migrate.report import compute_totals
from jp_migrate.store import StoreOptions, migrate_stores

T = TypeVar("T")


def _step(name: str, hint: str, call: Callable[[], T]) -> T:
    try:
        return call()
    except JpMigrateError as exc:
        raise JpMigrateError(f"{name}: {exc}{hint}") from None


def store_dry_run(config: CheckConfig, root: Path) -> list[StoreFile]:
    options = StoreOptions(
        check=True,
        diff=config.diff,
        encoding=config.encoding,
        rules=tuple(config.rules),
        exclude_archived=config.exclude_archived,
        user_local=False,  # a gate judges the checkout, never a machine's own JP data
        jobs=config.jobs,
    )
    hint = " (set `store = false` in the config, or pass --no-store, to skip the store)"
    files = _step(
        "store dry run", hint, lambda: migrate_stores(named(config.stores, root), options)
    )
    # A path that names no store (not a conversation of one) is an error with the same hint.
    return [
        f.model_copy(update={"message": f"store dry run: {f.message}{hint}"})
        if f.status == "error" and not f.conversation
        else f
        for f in files
    ]


def tools_dry_run(config: CheckConfig, root: Path) -> list[ToolFile]:
    options = ToolsOptions(
        write=False,
        diff=config.diff,
        exclude=tuple(config.exclude),
        exclude_base=config.exclude_base,
        jobs=config.jobs,
    )
    hint = " (set `tools = false` in the config, or pass --no-tools, to skip tool sources)"
    return _step(
        "codemod dry run", hint, lambda: migrate_tools(named(config.sources, root), options)
    )


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
