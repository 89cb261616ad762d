"""`jp-migrate rollback` (with `--list`) and `jp-migrate prune`: options in, exit code out.

`prune` is a command of its own, not a `rollback` option: it changes no
conversation, cannot be undone, and takes away what a rollback needs.
Exit codes as `conversations` (see `store.cli`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from jp_migrate.commands.options import (
    exclude_user_local_option,
    given_paths,
    jobs_option,
    paths_argument,
    quiet_option,
    report_option,
)
from jp_migrate.errors import InterruptReported
from jp_migrate.interrupts import Hold
from jp_migrate.store.cli import check_specs, echo, exit_code, finish, plural, progress_bar
from jp_migrate.visible import line

if TYPE_CHECKING:  # the store and the report models load only when a run needs them
    from jp_migrate.store.history import RunInfo
    from jp_migrate.store.rollback import RollbackRun


@click.command()
@paths_argument
@click.option(
    "--run",
    "run_id",
    metavar="ID",
    help="The run to undo (default: the newest not yet undone; --list shows them).",
)
@click.option(
    "--to-start",
    is_flag=True,
    help="Undo every run not yet undone, newest first, then remove their records: the "
    "store as before the first run.",
)
@click.option(
    "--list",
    "listing",
    is_flag=True,
    help="List the runs recorded, newest first (id, time, files, state); change nothing.",
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
@click.option("--dry-run", is_flag=True, help="Write nothing; print what would be restored.")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 when anything would be restored."
)
@click.option(
    "--diff",
    is_flag=True,
    help="Write nothing; show what would be restored as a diff (payloads decoded, one hunk "
    "per event); exit as --check does, or 0 with --dry-run.",
)
@jobs_option("Conversations restored in parallel.")
@exclude_user_local_option
@report_option
@quiet_option("errors, skipped files and diffs (no per-file lines or summary)")
def rollback(
    paths: tuple[Path, ...],
    run_id: str | None,
    to_start: bool,
    listing: bool,
    force: bool,
    downgrade: bool,
    dry_run: bool,
    check: bool,
    diff: bool,
    jobs: int,
    exclude_user_local: bool,
    reports: tuple[str, ...],
    quiet: bool,
) -> int:
    """Restore, byte for byte, the files a `conversations` run changed under PATH... (default: .).

    Refuses a file changed since the run wrote it, naming it (--force restores it
    anyway), and, with --downgrade, a file whose binary content (an image, a blob) a
    legacy response cannot hold (--force drops it). Exit codes: 0 restored or nothing
    to do, 1 --check/--diff found something that would be restored, 2 a file could
    not be restored.
    """
    check_specs(reports)
    if listing:
        if run_id or to_start or force or downgrade or dry_run or check or diff or reports:
            raise click.UsageError("--list takes no option but PATH and --exclude-user-local")
        return _list(given_paths(paths), user_local=not exclude_user_local)
    if dry_run and check:
        raise click.UsageError("choose one of --dry-run, --check")
    if run_id and to_start:
        raise click.UsageError("choose one of --run, --to-start")
    check = check or (diff and not dry_run)
    writes = not (dry_run or check or diff)
    from jp_migrate.store.rollback import RollbackOptions, rollback_stores

    options = RollbackOptions(
        run=run_id,
        to_start=to_start,
        force=force,
        downgrade=downgrade,
        user_local=not exclude_user_local,
        dry_run=not writes,
        diff=diff,
        jobs=jobs,
    )
    hold = Hold()  # from the rollback's last records to its last line, Ctrl-C waits
    try:
        try:
            with progress_bar("files") as bar:
                result = rollback_stores(
                    given_paths(paths), options, progress=bar, finishing=hold.start
                )
        except KeyboardInterrupt:  # said once the bar is gone: a line of its own
            hold.start()
            said = (
                "rollback stopped part way (each file restored is recorded in its run's "
                "journal); run the same command again to finish"
                if writes
                else "nothing was written"
            )
            click.echo(f"interrupted: {said}", err=True)
            raise InterruptReported from None
        code = exit_code(result.files, check=check)
        _print_restored(result, reports, writes=writes, quiet=quiet)
        finish(
            "rollback",
            result.files,
            reports,
            dry_run=not writes,
            code=code,
            timings=None,
            quiet=quiet,
        )
    finally:
        hold.end()
    return code


def _print_restored(
    result: RollbackRun, reports: Sequence[str], *, writes: bool, quiet: bool
) -> None:
    """Errors always; what was restored, the runs rolled back and the records removed
    unless --quiet."""
    for f in result.files:
        if f.status in ("error", "skipped"):
            click.echo(line(f"{f.status}: {f.path}: {f.message}"), err=True)
        elif f.status == "migrated" and not quiet:
            echo(f"{f.message}: {f.path}", reports)
        if f.diff:
            echo(f.diff.rstrip("\n"), reports)
    if quiet:
        return
    if not result.runs and not any(f.status != "unchanged" for f in result.files):
        echo("nothing to roll back", reports)
    elif not result.runs and not any(f.status == "migrated" for f in result.files):
        echo("nothing rolled back" if writes else "nothing would be rolled back", reports)
    for run in result.runs:
        echo(f"rolled back run {run}" if writes else f"would roll back run {run}", reports)
    for state in result.removed:
        echo(f"removed {_shown(state)}: every run in it is rolled back", reports)


def _shown(path: Path) -> str:
    from jp_migrate.store.names import escaped

    return escaped(str(path))


def _list(paths: list[Path], *, user_local: bool) -> int:
    """`rollback --list`: per storage root, its runs newest first. Exit 2 for a record that
    cannot be read (named on stderr), else 0."""
    from jp_migrate.store import manifest
    from jp_migrate.store.history import runs_of, storage_roots

    shown = 0
    damaged: list[RunInfo] = []
    for root in storage_roots(paths, user_local=user_local):
        infos = runs_of(root.path)
        if not infos:
            continue
        if shown:
            click.echo("")
        click.echo(f"{_shown(manifest.state_dir(root.path) / manifest.RUNS)} (newest first):")
        for row in _table(infos):
            click.echo(row)
        shown += len(infos)
        damaged += [info for info in infos if info.state == "unreadable"]
    if not shown:
        click.echo("no runs recorded")
    for info in damaged:
        click.echo(line(f"error: {info.note}"), err=True)
    return 2 if damaged else 0


def _table(infos: list[RunInfo]) -> list[str]:
    from jp_migrate.store.history import run_time

    width = max(len(info.id) for info in infos)
    rows = [f"{'ID':<{width}}  {'TIME':<25}  {'FILES':>5}  STATE"]
    for info in infos:
        when = run_time(info.id).astimezone().strftime("%Y-%m-%d %H:%M:%S %z")
        note = f"  {info.note}" if info.note and info.state != "unreadable" else ""
        rows.append(f"{info.id:<{width}}  {when:<25}  {info.files:>5}  {info.state}{note}")
    return rows


@click.command()
@paths_argument
@click.option(
    "--run",
    "run_ids",
    metavar="ID",
    multiple=True,
    help="Remove this run's record and backups, whatever its state (repeatable).",
)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Remove every run's record and backups; what they migrated stays, undone then "
    "only by rollback --downgrade.",
)
@click.option("--dry-run", is_flag=True, help="Write nothing; print what would be removed.")
@exclude_user_local_option
@quiet_option("the runs kept, and errors (no line per run removed)")
def prune(
    paths: tuple[Path, ...],
    run_ids: tuple[str, ...],
    everything: bool,
    dry_run: bool,
    exclude_user_local: bool,
    quiet: bool,
) -> int:
    """Remove the run records (and backups) of `conversations` runs under PATH... (default: .)
    that are no longer wanted: by default those of runs already rolled back.

    When no run is left, jp-migrate's state directory goes too. A run not finished
    whose process is still running is kept. Exit codes: 0 done or nothing to prune,
    2 a PATH or --run that names nothing, or a record that cannot be removed.
    """
    from jp_migrate.store.history import PruneOptions
    from jp_migrate.store.history import prune as prune_runs

    if run_ids and everything:
        raise click.UsageError("choose one of --run, --all")
    done = prune_runs(
        given_paths(paths),
        PruneOptions(
            runs=run_ids, all=everything, user_local=not exclude_user_local, dry_run=dry_run
        ),
    )
    verb = "would remove" if dry_run else "removed"
    for _, kept, pid in done.kept:
        click.echo(f"kept run {kept.id}: not finished, and its process {pid} is running")
    if not quiet:
        for _, info in done.removed:
            click.echo(f"{verb} run {info.id} ({_what(info)})")
        for state in done.cleared:
            click.echo(f"{verb} {_shown(state)}: no run is left in it")
        if not done.removed:
            click.echo("nothing to prune")
    return 0


def _what(info: RunInfo) -> str:
    """A pruned run in a few words, and what undo is left for what it wrote."""
    said = f"{info.state}, {plural(info.files, 'file')}"
    if info.note == "downgrade":
        return f"{said}, a downgrade" + (
            "" if info.state == "rolled back" else "; the migrated files it kept are gone"
        )
    if info.state == "rolled back":
        return said
    gone = "its backups are gone: " if info.backups else ""
    return f"{said}; {gone}undo with jp-migrate rollback --downgrade"
