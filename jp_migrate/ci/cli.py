"""`jp-migrate check [PATH]`: the store and codemod dry runs (and verify) in one CI step."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from jp_migrate.commands.options import (
    ENCODINGS,
    exclude_archived_option,
    jobs_option,
    quiet_option,
    report_option,
    rule_options,
    timings_option,
)
from jp_migrate.errors import JpMigrateError
from jp_migrate.visible import line

if TYPE_CHECKING:  # the run, its report models and renderers load when a check runs
    from jp_migrate.ci.config import CheckConfig
    from jp_migrate.contract.report import Report


def _problems(report: Report) -> list[str]:
    """One line per file or case in error, for stderr (whatever the report formats)."""
    from jp_migrate.report import case_label

    lines = [
        line(f"error: {f.path}: {f.message}")
        for f in [*(report.store or []), *(report.tools or [])]
        if f.status == "error"
    ]
    lines += [
        line(f"skipped: {f.path}: {f.message}") for f in report.store or [] if f.status == "skipped"
    ]
    lines += [
        line(f"error: verify {case_label(c)}: {c.message}")
        for c in report.verify or []
        if c.verdict == "error"
    ]
    return lines


def _attention(report: Report) -> list[str]:
    """--quiet on a terminal: what would change, unhandled sites and mismatches, one line each,
    then the diffs."""
    from jp_migrate.report import case_label

    lines = [
        line(f"would migrate: {f.path}")
        for f in [*(report.store or []), *(report.tools or [])]
        if f.status == "migrated"
    ]
    lines += [
        line(f"{f.path}:{s.line}:{s.column}: {s.rule}: {s.reason}")
        for f in report.tools or []
        for s in f.sites
        if s.action == "unhandled"
    ]
    lines += [
        line(f"mismatch: verify {case_label(c)}: {', '.join(c.differences)}")
        for c in report.verify or []
        if c.verdict == "mismatch"
    ]
    diffs = [f.diff.rstrip("\n") for f in [*(report.store or []), *(report.tools or [])] if f.diff]
    return lines + diffs


def build_config(
    path: Path,
    config_file: Path | None,
    *,
    diff: bool,
    exclude: tuple[str, ...],
    rules: tuple[str, ...],
    encoding: str | None,
    cases: Path | None,
    verify_tool: str | None,
    no_store: bool,
    no_tools: bool,
    jobs: int | None,
    reports: tuple[str, ...],
    exclude_archived: bool | None = None,
) -> CheckConfig:
    """The config file's values, with every flag that was given taking precedence."""
    if not path.exists():
        raise JpMigrateError(f"{path}: no such file or directory")
    from jp_migrate.ci.config import resolve_config

    config = resolve_config(path if path.is_dir() else path.parent, config_file)
    if not path.is_dir():  # a single tool source named on the command line is all that is checked
        config = replace(
            config, paths=(path,), store_paths=None, tool_paths=None, store=False, cases=None
        )
    if verify_tool is not None:
        config = replace(config, verify=replace(config.verify, tool=verify_tool))
    return config.override(
        diff=True if diff else None,
        exclude=exclude or None,
        exclude_base=Path.cwd() if exclude else None,  # flags are relative to where they are typed
        rules=rules or None,
        exclude_archived=exclude_archived or None,
        encoding=encoding,
        cases=cases,
        store=False if no_store else None,
        tools=False if no_tools else None,
        jobs=jobs,
        report=reports or None,
    )


@click.command()
@click.argument(
    "path", type=click.Path(path_type=Path), default=Path("."), required=False, metavar="[PATH]"
)
@click.option(
    "--config",
    "config_file",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="Config file (default: the nearest .jp-migrate.toml or pyproject.toml [tool.jp-migrate]).",
)
@report_option
@click.option("--diff", is_flag=True, help="Include unified diffs of what would change.")
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip tool sources matching GLOB (gitignore syntax; repeatable; replaces the "
    "config's list).",
)
@exclude_archived_option
@rule_options
@click.option(
    "--encoding",
    type=click.Choice(ENCODINGS),
    default=None,
    help="How migrated text is stored: base64, plain, or auto (as each original event "
    "stored it).  "
    "[default: the config's, else auto]",
)
@click.option(
    "--cases",
    metavar="FILE",
    type=click.Path(path_type=Path),
    default=None,
    help="Also run the tools on the cases in FILE (JSON lines) before and after their "
    "migration and compare, as `jp-migrate verify` does.",
)
@click.option(
    "--verify-tool",
    metavar="NAME",
    help="The workspace tool the --cases call (config: [verify] tool).",
)
@click.option("--no-store", is_flag=True, help="Skip the conversation stores.")
@click.option("--no-tools", is_flag=True, help="Skip the tool sources.")
@jobs_option("Worker processes.", default=None)
@timings_option
@quiet_option(
    "one line per file that would change, unhandled site, mismatch or error, then the "
    "diffs (no table; a --report still writes its report)"
)
def check(
    path: Path,
    config_file: Path | None,
    reports: tuple[str, ...],
    diff: bool,
    exclude: tuple[str, ...],
    exclude_archived: bool | None,
    rule_dirs: tuple[Path, ...],
    rule_ids: tuple[str, ...],
    encoding: str | None,
    cases: Path | None,
    verify_tool: str | None,
    no_store: bool,
    no_tools: bool,
    jobs: int | None,
    timings: bool,
    quiet: bool,
) -> int:
    """Check what migrating PATH (default: .) would change, writing nothing: for CI.

    Runs `conversations --check` over its conversation stores and `tools
    --check` over its tool sources in one step. Settings come from
    `[tool.jp-migrate]` in pyproject.toml or a .jp-migrate.toml (found at or
    above PATH); flags override them. Paths in reports are relative to the
    current directory. Exit codes: 0 nothing to migrate; 1 something would
    change, a verify mismatch or an unhandled site; 2 usage, config, input or
    environment error.
    """
    from jp_migrate.store.selection import RuleId

    rules = (*(str(d.resolve()) for d in rule_dirs), *(RuleId(i) for i in rule_ids))
    config = build_config(
        path,
        config_file,
        diff=diff,
        exclude=exclude,
        rules=rules,
        encoding=encoding,
        cases=cases,
        verify_tool=verify_tool,
        no_store=no_store,
        no_tools=no_tools,
        jobs=jobs,
        reports=reports,
        exclude_archived=exclude_archived,
    )
    from jp_migrate.report import emit_reports, parse_spec

    specs = list(config.report) or ([] if quiet else ["terminal"])
    for spec in specs:
        parse_spec(spec)  # a bad --report is a usage error before any work is done
    if not (config.store or config.tools or config.cases):
        raise JpMigrateError(
            "nothing to check: the store and the tools are both disabled and no cases are configured"
        )
    # The capabilities (libcst, the bridge) load once a check runs, not for --help or bad flags.
    from jp_migrate.ci.run import run_check
    from jp_migrate.files.workspace import find_workspace
    from jp_migrate.rules import rule_descriptions

    # The workspace whose tools the cases run; PATH's own directory when there is none
    # (the cases then name their error).
    start = path if path.is_dir() else path.parent
    workspace = (find_workspace(start) or Path(os.path.abspath(start))).resolve()
    report = run_check(config, Path.cwd(), workspace, timings=timings)
    for problem in _problems(report):
        click.echo(problem, err=True)
    if quiet and not config.report:
        for attention in _attention(report):
            click.echo(attention)
    sys.stdout.flush()
    # A config's report files stay in its repository; a --report FILE may go anywhere.
    within = config.source.parent if config.report and not reports and config.source else None
    emit_reports(report, specs, rules=rule_descriptions(), within=within)
    return report.exit_code
