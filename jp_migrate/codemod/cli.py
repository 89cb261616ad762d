"""`jp-migrate tools PATH...`: options in, exit code out (ruff's contract).

Exit codes: 0 nothing to do (or everything rewritten); 1 `--check`/`--diff`
found a file that would change, or an unhandled site is left; 2 a file could
not be read or parsed (the others were still processed), or a usage error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from jp_migrate.commands.options import (
    given_paths,
    jobs_option,
    paths_argument,
    quiet_option,
    report_option,
)
from jp_migrate.visible import line

if TYPE_CHECKING:  # the codemod (libcst) and the report models load only when a file needs them
    from jp_migrate.codemod.quick import QuickFile
    from jp_migrate.contract.report import ToolFile


def exit_code(files: Sequence[ToolFile | QuickFile], *, write: bool) -> int:
    if any(f.status == "error" for f in files):
        return 2
    if any(s.action == "unhandled" for f in files for s in f.sites):
        return 1
    if not write and any(f.status == "migrated" for f in files):
        return 1
    return 0


def _stdout_taken(reports: Sequence[str]) -> bool:
    return any("=" not in spec or spec.endswith("=-") for spec in reports)


def _summary(files: Sequence[ToolFile | QuickFile], *, write: bool) -> str:
    changed = sum(f.status == "migrated" for f in files)
    unhandled = sum(any(s.action == "unhandled" for s in f.sites) for f in files)
    errors = sum(f.status == "error" for f in files)
    skipped = sum(f.status == "skipped" for f in files)
    verb = "rewritten" if write else "would be rewritten"
    return (
        f"{plural(len(files), 'file')}: {changed} {verb}, {unhandled} with unhandled sites, "
        f"{plural(errors, 'error')}, {skipped} skipped"
    )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


@click.command()
@paths_argument
@click.option("--dry-run", is_flag=True, help="Write nothing; print what would change.")
@click.option(
    "--check",
    is_flag=True,
    help="Write nothing; exit 1 if a file would change or a site is unhandled.",
)
@click.option(
    "--diff",
    is_flag=True,
    help="Write nothing; show what would change as a unified diff; exit as --check does, "
    "or 0 with --dry-run.",
)
@click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip files/directories matching GLOB (gitignore syntax; repeatable).",
)
@jobs_option("Worker processes.")
@report_option
@quiet_option("errors, unhandled sites and diffs (no other sites, no summary)")
def tools(
    paths: tuple[Path, ...],
    dry_run: bool,
    check: bool,
    diff: bool,
    exclude: tuple[str, ...],
    jobs: int,
    reports: tuple[str, ...],
    quiet: bool,
) -> int:
    """Rewrite the Python tools under PATH... (default: .) that print a legacy Outcome.

    They then print RFD 058 content blocks that say the same.
    Files and directories (.gitignore honoured). Every site is printed as
    `path:line:col: rule-id: reason`. An unhandled site is left as it is and
    the rest of its file rewritten, unless it reads what a rewrite changes:
    then both are left and each names the other. `# jp-migrate: skip` on a line skips that site, in the file's first
    comment block the whole file.

    Exit codes: 0 nothing to do (or all rewritten, or --dry-run); 1 a file
    would change (--check, --diff) or an unhandled site is left; 2 a file could not be read
    or parsed (the others are still processed), or a usage error.
    """
    if reports:
        from jp_migrate.report import parse_spec

        for spec in reports:
            parse_spec(spec)  # a bad --report fails before any file is touched
    if dry_run and check:
        raise click.UsageError("choose one of --dry-run, --check")
    write = not (check or diff or dry_run)
    from jp_migrate.codemod.quick import triage

    judged, rest = triage(given_paths(paths), exclude, jobs=jobs)
    files: list[ToolFile | QuickFile] = list(judged)
    if rest:  # the files the pre-check could not rule out: the codemod proper
        from jp_migrate.codemod.api import ToolsOptions, migrate_tools

        options = ToolsOptions(write=write, diff=diff, jobs=jobs)  # rest is already excluded
        files = sorted([*judged, *migrate_tools(rest, options)], key=lambda f: Path(f.path))
    to_err = _stdout_taken(reports)
    for f in files:
        if f.status == "error":
            click.echo(line(f"error: {f.path}: {f.message}"), err=True)
        for site in f.sites:
            if site.action == "unhandled" or not quiet:
                from jp_migrate.codemod.sites import format_site

                click.echo(format_site(f.path, site), err=to_err)
        if f.diff:
            click.echo(f.diff, nl=False, err=to_err)
    code = exit_code(files, write=write or dry_run)
    if not quiet:
        click.echo(_summary(files, write=write), err=True)
    if reports:
        from jp_migrate.contract.report import Report, ToolFile
        from jp_migrate.report import compute_totals, emit_reports
        from jp_migrate.rules import rule_descriptions

        tools = [
            f
            if isinstance(f, ToolFile)
            else ToolFile(path=f.path, status=f.status, message=f.message)
            for f in files
        ]
        report = Report(command="tools", dry_run=not write, exit_code=code, tools=tools)
        emit_reports(
            report.model_copy(update={"totals": compute_totals(report)}),
            reports,
            rules=rule_descriptions(),
        )
    return code
