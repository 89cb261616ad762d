"""`jp-migrate conversations` and `jp-migrate rollback`: options in, exit code out.

Exit codes (ruff's contract): 0 done or nothing to do; 1 `--check` found
something to migrate, or `--verify` found a problem; 2 a file or PATH could not
be handled (bad input, locked, unsupported layout) while the rest was still done,
or a usage error.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import click

from jp_migrate.commands.options import jobs_option, report_option
from jp_migrate.contract.report import Report, StoreFile
from jp_migrate.store.api import Progress, StoreOptions, run_stores
from jp_migrate.store.names import escaped
from jp_migrate.store.rollback import RollbackOptions, rollback_stores
from jp_migrate.visible import line

USER_LOCAL_OPTION = click.option(
    "--exclude-user-local",
    is_flag=True,
    help="For a workspace PATH, leave out JP's user-local storage of it "
    "(<data>/jp/workspace/<name>-<id>/conversations/).",
)

PROGRESS_MIN = 20  # conversations; shorter runs finish before a bar is worth drawing


def exit_code(files: Sequence[StoreFile], *, check: bool = False, verify: bool = False) -> int:
    if any(f.status in ("error", "skipped") and not f.problems for f in files):
        return 2
    if verify and any(f.problems for f in files):
        return 1
    if check and any(f.status == "migrated" for f in files):
        return 1
    return 0


def _stdout_taken(reports: Sequence[str]) -> bool:
    return any("=" not in spec or spec.endswith("=-") for spec in reports)


def _echo(text: str, reports: Sequence[str]) -> None:
    click.echo(text, err=_stdout_taken(reports))


def _table_shown(reports: Sequence[str]) -> bool:
    """The rich summary table replaces the per-file lines on a terminal."""
    return sys.stdout.isatty() and not _stdout_taken(reports)


def _print_files(
    files: Sequence[StoreFile], reports: Sequence[str], *, dry_run: bool, verb: str
) -> None:
    table = _table_shown(reports)
    for f in files:
        if f.status == "error" and f.problems:
            for problem in f.problems:
                click.echo(line(f"problem: {f.path}: {problem}"), err=True)
        elif f.status in ("error", "skipped"):
            click.echo(line(f"{f.status}: {f.path}: {f.message}"), err=True)
        elif f.status == "migrated" and not table:
            repairs = f", {len(f.repairs)} repaired" if f.repairs else ""
            word = f"would {verb}" if dry_run else f"{verb}d"
            _echo(f"{word} {f.path} ({f.events_migrated} events{repairs})", reports)
        if f.status in ("migrated", "unchanged") and f.message and not table:
            click.echo(line(f"note: {f.path}: {f.message}"), err=True)  # e.g. a leftover removed
        for warning in f.warnings:
            click.echo(line(f"warning: {f.path}: {warning}"), err=True)
        if f.diff:
            _echo(f.diff.rstrip("\n"), reports)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _summary(files: Sequence[StoreFile], *, wrote: bool) -> str:
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
def _progress_bar() -> Iterator[Progress | None]:
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
            task.append(bar.add_task("conversations", total=total))
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
    from jp_migrate.report import compute_totals

    report = Report(command=command, dry_run=dry_run, exit_code=code, store=files, timings=timings)
    report.totals = compute_totals(report)
    return report


def _finish(
    command: str,
    files: list[StoreFile],
    reports: Sequence[str],
    *,
    dry_run: bool,
    code: int,
    timings: dict[str, float] | None,
) -> None:
    from jp_migrate.report import emit_reports

    report = _report(command, files, dry_run=dry_run, code=code, timings=timings)
    if _table_shown(reports):
        emit_reports(report, ["terminal"])
    if reports:
        emit_reports(report, list(reports))


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Write nothing; print what would change.")
@click.option(
    "--diff",
    is_flag=True,
    help="Show a readable diff (decoded payloads), one hunk per changed event.",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when anything would change.")
@click.option(
    "--verify",
    is_flag=True,
    help="Check a migrated store without changing it; exit 1 on a problem.",
)
@click.option(
    "--encoding",
    type=click.Choice(["auto", "base64", "plain"]),
    default="auto",
    show_default=True,
    help="Encoding of written payloads; auto mirrors each event's source.",
)
@click.option(
    "--no-backup", is_flag=True, help="Do not keep the original files under .jp-migrate/."
)
@click.option(
    "--rules",
    "rule_dirs",
    multiple=True,
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Enable the store rules in DIR (repeatable).",
)
@click.option(
    "--rule",
    "rule_ids",
    multiple=True,
    metavar="ID",
    help="Enable a shipped store rule by id (repeatable).",
)
@click.option(
    "--exclude-archived", is_flag=True, help="Skip conversations under conversations/.archive/."
)
@USER_LOCAL_OPTION
@jobs_option("Conversations processed in parallel.")
@click.option(
    "--shard",
    metavar="K/N",
    help="Only the K-th of N stable subsets (by a CRC-32 of the conversation id).",
)
@report_option
@click.option(
    "--timings", is_flag=True, help="Put durations in the report (off: reports are deterministic)."
)
def conversations(
    paths: tuple[Path, ...],
    dry_run: bool,
    diff: bool,
    check: bool,
    verify: bool,
    encoding: str,
    no_backup: bool,
    rule_dirs: tuple[Path, ...],
    rule_ids: tuple[str, ...],
    exclude_archived: bool,
    exclude_user_local: bool,
    jobs: int,
    shard: str | None,
    reports: tuple[str, ...],
    timings: bool,
) -> int:
    """Migrate every legacy tool_call_response in the conversation stores under PATH... to content blocks.

    PATH is a workspace (with .jp/; JP's user-local storage of it included), a
    storage root (with conversations/) or one conversation directory. Originals
    are kept under <root>/.jp-migrate/ unless --no-backup; undo with
    `jp-migrate rollback PATH`.

    Exit codes: 0 done or nothing to do, 1 --check would change / --verify found
    a problem, 2 a file or PATH could not be handled (the rest was still done).
    """
    from jp_migrate.report import parse_spec

    for spec in reports:
        parse_spec(spec)  # a bad --report is a usage error before anything runs
    if sum((check, verify, dry_run)) > 1:
        raise click.UsageError("choose one of --dry-run, --check, --verify")
    # As in ruff and black, --diff only shows: on its own it is a dry run.
    dry_run = dry_run or (diff and not check and not verify)
    options = StoreOptions(
        dry_run=dry_run,
        check=check,
        diff=diff,
        verify=verify,
        encoding=encoding,  # type: ignore[arg-type]
        rules=(*rule_dirs, *rule_ids),
        exclude_archived=exclude_archived,
        user_local=not exclude_user_local,
        backup=not no_backup,
        jobs=jobs,
        shard=shard,
    )
    started = time.perf_counter()
    with _progress_bar() as progress:
        run = run_stores(list(paths), options, progress=progress)
    elapsed = {"total_seconds": round(time.perf_counter() - started, 3)} if timings else None
    code = exit_code(run.files, check=check, verify=verify)
    verb = "verifie" if verify else "migrate"
    _print_files(run.files, reports, dry_run=dry_run or check, verb=verb)
    if verify:
        _echo(
            f"verified {len(run.files)} files: {sum(1 for f in run.files if f.problems)} with problems",
            reports,
        )
    elif not _table_shown(reports):  # on a terminal the table's headline says it
        _echo(_summary(run.files, wrote=options.writes), reports)
    _finish(
        "conversations", run.files, reports, dry_run=not options.writes, code=code, timings=elapsed
    )
    for directory in run.runs:  # last, so a long table cannot scroll it away
        _echo(f"run recorded in {escaped(str(directory))} (undo: jp-migrate rollback)", reports)
    return code


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--run", "run_id", metavar="ID", help="The run to undo (default: the newest not yet undone)."
)
@click.option(
    "--force",
    is_flag=True,
    help="Restore even files changed since the migration wrote them; with --downgrade, "
    "drop binary content a legacy response cannot hold.",
)
@click.option(
    "--downgrade",
    is_flag=True,
    help="Convert migrated events back to legacy where no backup exists.",
)
@USER_LOCAL_OPTION
@report_option
def rollback(
    paths: tuple[Path, ...],
    run_id: str | None,
    force: bool,
    downgrade: bool,
    exclude_user_local: bool,
    reports: tuple[str, ...],
) -> int:
    """Restore, byte for byte, the files a `conversations` run changed under PATH...

    Refuses a file changed since the run wrote it, naming it (--force restores it
    anyway), and, with --downgrade, a file whose binary content (an image, a blob) a
    legacy response cannot hold (--force drops it). Exit codes: 0 restored or nothing
    to do, 2 a file could not be restored.
    """
    from jp_migrate.report import parse_spec

    for spec in reports:
        parse_spec(spec)
    result = rollback_stores(
        list(paths),
        RollbackOptions(
            run=run_id, force=force, downgrade=downgrade, user_local=not exclude_user_local
        ),
    )
    code = exit_code(result.files)
    for f in result.files:
        if f.status in ("error", "skipped"):
            click.echo(line(f"{f.status}: {f.path}: {f.message}"), err=True)
        elif f.status == "migrated":
            _echo(f"{f.message}: {f.path}", reports)
    if not result.runs and not any(f.status != "unchanged" for f in result.files):
        _echo("nothing to roll back", reports)
    elif not result.runs and not any(f.status == "migrated" for f in result.files):
        _echo("nothing rolled back", reports)
    for run in result.runs:
        _echo(f"rolled back run {run}", reports)
    _finish("rollback", result.files, reports, dry_run=False, code=code, timings=None)
    return code
