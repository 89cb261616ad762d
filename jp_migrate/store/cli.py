"""`jp-migrate conversations`: options in, exit code out (and what `rollback` shares).

Exit codes (ruff's contract): 0 done or nothing to do; 1 `--check` found
something to migrate, or `--check-integrity` found a problem; 2 a file or PATH could not
be handled (bad input, locked, unsupported layout) while the rest was still done,
or a usage error.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from jp_migrate.commands.options import (
    ENCODINGS,
    exclude_archived_option,
    exclude_user_local_option,
    given_paths,
    hidden_alias,
    jobs_option,
    paths_argument,
    quiet_option,
    report_option,
    rule_options,
    timings_option,
)
from jp_migrate.errors import InterruptReported
from jp_migrate.interrupts import Hold
from jp_migrate.visible import line

if TYPE_CHECKING:  # the store and the report models load only when a run needs them
    from jp_migrate.contract.report import Report, StoreFile
    from jp_migrate.store.api import Progress, StoreOptions, StoreRun

PROGRESS_MIN = 20  # conversations; shorter runs finish before a bar is worth drawing


def exit_code(files: Sequence[StoreFile], *, check: bool = False, verify: bool = False) -> int:
    if any(f.status in ("error", "skipped") and not f.problems for f in files):
        return 2
    if verify and any(f.problems for f in files):
        return 1
    if check and any(f.status == "migrated" for f in files):
        return 1
    return 0


def check_specs(reports: Sequence[str]) -> None:
    """A bad --report is a usage error before anything runs (the report layer loads only then)."""
    if reports:
        from jp_migrate.report import parse_spec

        for spec in reports:
            parse_spec(spec)


def _stdout_taken(reports: Sequence[str]) -> bool:
    return any("=" not in spec or spec.endswith("=-") for spec in reports)


def echo(text: str, reports: Sequence[str]) -> None:
    """A line of the run's output: on stdout, or on stderr when a report takes stdout."""
    click.echo(text, err=_stdout_taken(reports))


def _table_shown(reports: Sequence[str], quiet: bool = False) -> bool:
    """The rich summary table replaces the per-file lines on a terminal."""
    return sys.stdout.isatty() and not _stdout_taken(reports) and not quiet


def _print_files(
    files: Sequence[StoreFile], reports: Sequence[str], *, dry_run: bool, quiet: bool
) -> None:
    """Errors, problems, warnings and diffs always; the per-file lines unless a table or
    --quiet says it."""
    table = _table_shown(reports) or quiet
    for f in files:
        if f.status == "error" and f.problems:
            for problem in f.problems:
                click.echo(line(f"problem: {f.path}: {problem}"), err=True)
        elif f.status in ("error", "skipped"):
            click.echo(line(f"{f.status}: {f.path}: {f.message}"), err=True)
        elif f.status == "migrated" and not table:
            repairs = f", {len(f.repairs)} repaired" if f.repairs else ""
            word = "would migrate" if dry_run else "migrated"
            echo(f"{word} {f.path} ({plural(f.events_migrated, 'event')}{repairs})", reports)
        if f.status in ("migrated", "unchanged") and f.message and not table:
            click.echo(line(f"note: {f.path}: {f.message}"), err=True)  # e.g. a leftover removed
        for warning in f.warnings:
            click.echo(line(f"warning: {f.path}: {warning}"), err=True)
        if f.diff:
            echo(f.diff.rstrip("\n"), reports)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _undo(paths: Sequence[Path], *, backup: bool = True) -> str:
    """The rollback command for the PATHs this run was given, ready to paste; without a
    backup, the downgrade (which gives back the same text, not always the same bytes)."""
    import shlex

    words = ["jp-migrate rollback", *([] if backup else ["--downgrade"])]
    command = " ".join([*words, *(shlex.quote(str(p)) for p in paths)])
    if backup:
        return command
    return f"{command}, which converts the responses back to legacy strings of the same text"


def _undo_hint(paths: Sequence[Path], *, backup: bool) -> str:
    return (
        f"undo: {_undo(paths)}" if backup else f"no backup kept; undo: {_undo(paths, backup=False)}"
    )


def _report_interrupt(
    paths: list[Path], floor: str, seen: list[int], options: StoreOptions
) -> None:
    """Ctrl-C: what the run had written and how to undo it, on stderr, in one line each."""
    if not options.writes:
        click.echo("interrupted: nothing was written", err=True)
        return
    from jp_migrate.store.interrupted import forget, written_since

    runs = written_since(paths, floor, user_local=options.user_local)
    for run in [r for r in runs if r.files == 0]:
        forget(run)  # its journal names only writes abandoned before their rename
    runs = [r for r in runs if r.files != 0]
    written = sum(max(r.files, 0) for r in runs)
    of = f" of {seen[1]}" if seen[1] else ""
    if not runs:
        click.echo(f"interrupted: 0{of} conversations migrated, nothing was written", err=True)
        return
    where = ", ".join(str(r.directory) for r in runs)
    click.echo(
        f"interrupted: {written}{of} conversations migrated, run recorded in {where}; "
        f"{_undo_hint(paths, backup=options.backup)}",
        err=True,
    )


NOTHING = "no conversations found"


def _nothing_under(paths: list[Path], *, exclude_archived: bool, user_local: bool) -> bool:
    """No conversation and no bad PATH: nothing to do, known from directory listings alone
    (a pre-commit hook in a repository without conversations pays for nothing more)."""
    from jp_migrate.store.discover import discover

    errors: list[tuple[Path, str]] = []
    found = discover(paths, exclude_archived=exclude_archived, user_local=user_local, errors=errors)
    return not found and not errors


def _integrity_summary(files: Sequence[StoreFile]) -> str:
    """What --check-integrity found, and what it could not check (that makes exit 2)."""
    if not files:
        return NOTHING
    problems = sum(1 for f in files if f.problems)
    failed = sum(1 for f in files if f.status == "error" and not f.problems)
    skipped = sum(1 for f in files if f.status == "skipped")
    checked = len(files) - failed - skipped
    head = (
        f"checked {plural(len(files), 'file')}"
        if checked == len(files)
        else f"checked {checked} of {plural(len(files), 'file')}"
    )
    parts = [f"{head}: {problems} with problems"]
    if failed:
        parts.append(f"{failed} could not be read")
    if skipped:
        parts.append(f"{skipped} skipped")
    return ", ".join(parts)


def _summary(files: Sequence[StoreFile], *, wrote: bool) -> str:
    if not files:
        return NOTHING
    counts = {
        s: sum(1 for f in files if f.status == s)
        for s in ("migrated", "unchanged", "error", "skipped")
    }
    events = sum(f.events_migrated for f in files if f.status == "migrated")
    changed = "changed" if wrote else "would change"
    return (
        f"{plural(len(files), 'file')}: {counts['migrated']} {changed} ({plural(events, 'event')}), "
        f"{counts['unchanged']} unchanged, {plural(counts['error'], 'error')}, "
        f"{counts['skipped']} skipped"
    )


@contextmanager
def progress_bar(what: str = "conversations") -> Iterator[Progress | None]:
    """A bar on stderr when it is a terminal and the run is long enough to want one."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress as Bar

    # No refresh thread (auto_refresh=False): `--jobs` forks workers while the bar is up.
    bar = Bar(console=Console(stderr=True), transient=True, auto_refresh=False)
    task: list[int] = []

    def advance(done: int, total: int) -> None:
        if total < PROGRESS_MIN:
            return
        if not task:
            bar.start()
            task.append(bar.add_task(what, total=total))
        bar.update(task[0], completed=done, refresh=True)

    try:
        yield advance
    finally:
        if task:
            bar.stop()


def _report(
    command: str,
    files: list[StoreFile],
    *,
    dry_run: bool,
    code: int,
    timings: dict[str, float] | None,
) -> Report:
    from jp_migrate.contract.report import Report
    from jp_migrate.report import compute_totals

    report = Report(command=command, dry_run=dry_run, exit_code=code, store=files, timings=timings)
    report.totals = compute_totals(report)
    return report


def finish(
    command: str,
    files: list[StoreFile],
    reports: Sequence[str],
    *,
    dry_run: bool,
    code: int,
    timings: dict[str, float] | None,
    quiet: bool = False,
) -> None:
    if not reports and not _table_shown(reports, quiet):
        return  # nothing to render: the report layer (pydantic, rich) is not loaded
    from jp_migrate.report import emit_reports

    report = _report(command, files, dry_run=dry_run, code=code, timings=timings)
    if _table_shown(reports, quiet):
        emit_reports(report, ["terminal"])
    if reports:
        emit_reports(report, list(reports))


@click.command()
@paths_argument
@click.option("--dry-run", is_flag=True, help="Write nothing; print what would change.")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when anything would change.")
@click.option(
    "--diff",
    is_flag=True,
    help="Write nothing; show what would change as a diff (payloads decoded, one hunk per "
    "event); exit as --check does, or 0 with --dry-run.",
)
@click.option(
    "--check-integrity",
    "integrity",
    is_flag=True,
    help="Read an already migrated store and report what is wrong with it (legacy events "
    "left, unreadable blocks); writes nothing; exit 1 on a problem.",
)
@hidden_alias("--verify", "integrity_alias")
@click.option(
    "--encoding",
    type=click.Choice(ENCODINGS),
    default="auto",
    show_default=True,
    help="How migrated text is stored: base64 (as JP writes it), plain, or auto (as each "
    "original event stored it).",
)
@click.option(
    "--no-backup", is_flag=True, help="Do not keep the original files under .jp-migrate/."
)
@rule_options
@exclude_archived_option
@exclude_user_local_option
@jobs_option("Conversations processed in parallel.")
@click.option(
    "--shard",
    metavar="K/N",
    help="Only the K-th of N stable subsets (by a CRC-32 of the conversation id).",
)
@report_option
@timings_option
@quiet_option("errors, problems, warnings and diffs (no per-file lines, table or summary)")
def conversations(
    paths: tuple[Path, ...],
    dry_run: bool,
    check: bool,
    diff: bool,
    integrity: bool,
    integrity_alias: bool,
    encoding: str,
    no_backup: bool,
    rule_dirs: tuple[Path, ...],
    rule_ids: tuple[str, ...],
    exclude_archived: bool | None,
    exclude_user_local: bool,
    jobs: int,
    shard: str | None,
    reports: tuple[str, ...],
    timings: bool,
    quiet: bool,
) -> int:
    """Migrate the legacy tool responses stored in the conversations under PATH... (default: .).

    Each legacy response (an Outcome) becomes RFD 058 content blocks, saying
    exactly what it said before.

    PATH is a workspace (with .jp/; JP's user-local storage of it included), a
    storage root (the directory holding conversations/, or conversations/
    itself) or one conversation directory. Originals are kept under
    <root>/.jp-migrate/ unless --no-backup; undo with `jp-migrate rollback PATH`.

    Exit codes: 0 done or nothing to do, 1 --check/--diff found something that
    would change or --check-integrity found a problem, 2 a file or PATH could
    not be handled (the rest was still done).
    """
    check_specs(reports)
    verify = integrity or integrity_alias
    if sum((check, verify, dry_run)) > 1:
        raise click.UsageError("choose one of --dry-run, --check, --check-integrity")
    # As in ruff and `jp-migrate tools`: --diff never writes, and says by its exit code
    # whether anything would change (unless --dry-run asks for 0).
    check = check or (diff and not dry_run and not verify)
    if not (reports or rule_dirs or rule_ids or shard) and _nothing_under(
        given_paths(paths),
        exclude_archived=bool(exclude_archived),
        user_local=not exclude_user_local,
    ):
        if not quiet:
            echo(NOTHING, reports)
        return 0
    from jp_migrate.store.api import StoreOptions, run_stores
    from jp_migrate.store.selection import RuleId

    options = StoreOptions(
        dry_run=dry_run,
        check=check,
        diff=diff,
        verify=verify,
        encoding=encoding,  # type: ignore[arg-type]
        rules=(*rule_dirs, *(RuleId(i) for i in rule_ids)),
        exclude_archived=bool(exclude_archived),
        user_local=not exclude_user_local,
        backup=not no_backup,
        jobs=jobs,
        shard=shard,
    )
    from jp_migrate.store.interrupted import run_id_floor

    started = time.perf_counter()
    floor = run_id_floor()
    seen = [0, 0]  # conversations done, of how many (as far as the run got)
    hold = Hold()  # from the run's recording to its last line, Ctrl-C waits
    try:
        try:
            with progress_bar() as bar:

                def progress(done: int, total: int) -> None:
                    seen[:] = [done, total]
                    if bar is not None:
                        bar(done, total)

                run = run_stores(
                    given_paths(paths), options, progress=progress, finishing=hold.start
                )
        except KeyboardInterrupt:  # said once the bar is gone: a line of its own
            hold.start()
            _report_interrupt(given_paths(paths), floor, seen, options)
            raise InterruptReported from None
        elapsed = {"total_seconds": round(time.perf_counter() - started, 3)} if timings else None
        code = exit_code(run.files, check=check, verify=verify)
        _report_run(run, paths, options, reports, quiet=quiet, code=code, timings=elapsed)
    finally:
        hold.end()
    return code


def _report_run(
    run: StoreRun,
    paths: tuple[Path, ...],
    options: StoreOptions,
    reports: Sequence[str],
    *,
    quiet: bool,
    code: int,
    timings: dict[str, float] | None,
) -> None:
    """What the run did: the lines, the summary, the reports, and last how to undo it."""
    _print_files(run.files, reports, dry_run=not options.writes, quiet=quiet)
    if quiet:
        pass
    elif options.verify:
        echo(_integrity_summary(run.files), reports)
    elif not _table_shown(reports):  # on a terminal the table's headline says it
        echo(_summary(run.files, wrote=options.writes), reports)
    finish(
        "conversations",
        run.files,
        reports,
        dry_run=not options.writes,
        code=code,
        timings=timings,
        quiet=quiet,
    )
    if not quiet:
        from jp_migrate.store.names import escaped

        hint = _undo_hint(given_paths(paths), backup=options.backup)
        for directory in run.runs:  # last, so a long table cannot scroll it away
            echo(f"run recorded in {escaped(str(directory))} ({hint})", reports)
