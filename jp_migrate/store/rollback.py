"""`jp-migrate rollback`: undo migration runs (Alembic's downgrade to our upgrade).

This module picks what to undo: per storage root, the newest run not rolled
back (or `--run ID`, or with `--to-start` every such run, newest first), the
files each wrote that a PATH names, and with `--downgrade` the migrated files
no run kept a backup of. What is done to each file (`undo.Restore`,
`undo.Downgrade`) goes through the migration's own pipeline: the same locks,
error lines, journal, commit step and `--jobs` workers, a dry run parting from
a real run only at the commit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jp_migrate.contract.report import StoreFile
from jp_migrate.errors import JpMigrateError
from jp_migrate.store import history, manifest
from jp_migrate.store.api import Finishing, Progress, run_all
from jp_migrate.store.discover import (
    Conversation,
    Found,
    StorageRoot,
    discover,
    path_error,
    resolve_all,
)
from jp_migrate.store.names import shown_file
from jp_migrate.store.pipeline import Task, sweep
from jp_migrate.store.settings import Result, Settings
from jp_migrate.store.undo import Downgrade, Restore

OK = ("migrated", "unchanged")


@dataclass(frozen=True)
class RollbackOptions:
    run: str | None = None  # default: the newest run not yet rolled back
    to_start: bool = False  # every run not rolled back, newest first
    force: bool = False
    downgrade: bool = False
    user_local: bool = True  # a workspace PATH includes JP's user-local storage of it
    dry_run: bool = False  # write nothing (no lock file either): say what would be restored
    diff: bool = False  # put a readable diff of each restore or downgrade in its StoreFile
    jobs: int = 1


@dataclass
class RollbackRun:
    files: list[StoreFile]
    runs: list[str] = field(default_factory=list)  # run ids rolled back, in that order
    removed: list[Path] = field(default_factory=list)  # state directories `--to-start` emptied


@dataclass
class _Root:
    """A storage root under the PATHs: the conversations they name there, and what to undo."""

    root: StorageRoot
    wanted: set[str] = field(default_factory=set)  # conversations (relative) a PATH names
    whole: bool = False  # a PATH names the whole store
    runs: list[manifest.Run] = field(default_factory=list)  # to undo, in this order
    covered: set[str] = field(default_factory=set)  # conversations those runs wrote


def _conversation_for(root: StorageRoot, relative: str) -> Conversation:
    parts = relative.split("/")
    return Conversation(root, parts[-2], archived=len(parts) > 3 and parts[1] == ".archive")


def _elsewhere(root: StorageRoot, conversation: Conversation) -> Conversation:
    """The same conversation archived, or unarchived when it is archived (`jp conversation archive`)."""
    return Conversation(root, conversation.name, archived=not conversation.archived)


def _where_now(
    root: StorageRoot, conversation: Conversation, wanted: set[str]
) -> Conversation | None:
    """The conversation a record names, found now, archived or unarchived since the run."""
    if conversation.relative in wanted:
        return conversation
    moved = _elsewhere(root, conversation)
    return moved if moved.relative in wanted else None


def _roots(
    paths: Sequence[Path], found: list[Found], unresolved: list[Path], user_local: bool
) -> list[_Root]:
    """Every storage root under `paths`, once (by real path), with what the PATHs name there."""
    roots: dict[str, _Root] = {}
    for item in found:
        conversation = item if isinstance(item, Conversation) else item.conversation
        real = os.path.realpath(conversation.root.path)
        roots.setdefault(real, _Root(conversation.root)).wanted.add(conversation.relative)
    for path in paths:
        if path in unresolved:
            continue  # discover reported it
        try:
            resolved = resolve_all(path, user_local=user_local)
        except JpMigrateError:
            continue
        for root, only in resolved:
            entry = roots.setdefault(os.path.realpath(root.path), _Root(root))
            entry.whole = entry.whole or only is None
    return list(roots.values())


def _pick(entry: _Root, options: RollbackOptions) -> list[manifest.Run]:
    """`--run ID` (none when this root has no such run), else the newest run not rolled back
    (every one with `--to-start`, newest first) that changed a conversation a PATH names.
    A downgrade's run is undone only by naming it."""
    root = entry.root
    if options.run is not None:
        if not manifest.has_run(root.path, options.run):
            return []
        return [manifest.load_run(root.path, options.run)]
    picked = []
    for run_id in reversed(manifest.list_runs(root.path)):
        run = manifest.load_run(root.path, run_id)
        if run.rolled_back or run.downgrade or not run.files:
            continue
        if entry.whole or any(
            _where_now(root, _conversation_for(root, r.path), entry.wanted) for r in run.files
        ):
            picked.append(run)
            if not options.to_start:
                break
    return picked


def _restores(
    entry: _Root, run: manifest.Run, options: RollbackOptions
) -> tuple[list[Task], list[StoreFile]]:
    """The run's files a PATH names, where they are now; and those gone (when the whole
    store is named)."""
    tasks: list[Task] = []
    gone: list[StoreFile] = []
    for record in run.files:
        recorded = _conversation_for(entry.root, record.path)
        conversation = _where_now(entry.root, recorded, entry.wanted)
        if conversation is None:
            if entry.whole:
                message = f"missing: run {run.id} wrote it, it is gone now"
                gone.append(
                    StoreFile(
                        path=recorded.shown,
                        conversation=recorded.name,
                        status="error",
                        message=message,
                    )
                )
            continue
        entry.covered |= {recorded.relative, conversation.relative}
        tasks.append(Restore(conversation, record, run, options.force, options.downgrade))
    return tasks, gone


def _backed_up(root: Path) -> dict[str, str]:
    """Conversation (relative) → the newest migration run not rolled back holding its backup."""
    out: dict[str, str] = {}
    for run_id in manifest.list_runs(root):
        run = manifest.load_run(root, run_id)
        if not run.rolled_back and not run.downgrade:
            out.update((r.path.rsplit("/", 1)[0], run.id) for r in run.files if r.backup)
    return out


def _downgrades(
    entries: list[_Root], found: list[Found], force: bool
) -> tuple[list[Task], list[StoreFile]]:
    """`--downgrade`: the conversations no undone run covers; one an older run holds the
    backup of is left to that run, named."""
    tasks: list[Task] = []
    left: list[StoreFile] = []
    for entry in entries:
        backed = _backed_up(entry.root.path)
        for item in found:
            if not isinstance(item, Conversation) or item.root != entry.root:
                continue
            if item.relative in entry.covered:
                continue
            holder = backed.get(item.relative) or backed.get(_elsewhere(entry.root, item).relative)
            if holder is None:
                tasks.append(Downgrade(item, force))
                continue
            left.append(
                StoreFile(
                    path=item.shown,
                    conversation=item.name,
                    status="skipped",
                    message=f"run {holder} holds its backup: not downgraded "
                    f"(jp-migrate rollback --run {holder})",
                )
            )
    return tasks, left


class _Counted:
    """One progress over several runs of tasks: `progress` told the done and total of all."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.before = progress, total, 0

    def results(self, tasks: list[Task], settings: Settings, jobs: int) -> list[Result]:
        tell: Callable[[int, int], None] | None = None
        if self.progress is not None:
            progress, before, total = self.progress, self.before, self.total
            tell = lambda done, _: progress(before + done, total)
        results = list(run_all(tasks, settings, jobs, tell))
        self.before += len(tasks)
        return results


def rollback_stores(
    paths: list[Path],
    options: RollbackOptions,
    *,
    progress: Progress | None = None,
    finishing: Finishing | None = None,
) -> RollbackRun:
    """Roll back the chosen runs in every storage root under `paths` (restricted to the
    conversations named). `finishing` is called once every file is done, before the last
    records are written (see `store.api.run_stores`)."""
    if options.jobs < 1:
        raise JpMigrateError(f"--jobs {options.jobs}: must be at least 1")
    unresolved: list[tuple[Path, str]] = []
    found = discover(paths, user_local=options.user_local, errors=unresolved)
    entries = _roots(paths, found, [path for path, _ in unresolved], options.user_local)
    for entry in entries:  # every root's runs picked before anything is restored
        entry.runs = _pick(entry, options)
    # `--run ID` names one run, which a workspace's `.jp/` and its user-local storage may not
    # both have: an error only when no root has it.
    if options.run is not None and not any(entry.runs for entry in entries):
        where = ", ".join(str(manifest.state_dir(entry.root.path)) for entry in entries)
        raise JpMigrateError(f"{where}: no run {options.run!r}")
    files: list[StoreFile] = [path_error(path, reason) for path, reason in unresolved]
    work = [
        (entry, run, *_restores(entry, run, options)) for entry in entries for run in entry.runs
    ]
    downgrades, left = _downgrades(entries, found, options.force) if options.downgrade else ([], [])
    files += left
    settings = Settings(
        mode="dry-run" if options.dry_run else "write",
        diff=options.diff,
        run_id=manifest.new_run_id(),  # the run of downgrades no run covers, if any
    )
    if not options.dry_run:  # a dry run writes nothing, not even a cleanup
        sweep([item for item in found if isinstance(item, Conversation)], temporaries=True)
    counted = _Counted(progress, sum(len(tasks) for _, _, tasks, _ in work) + len(downgrades))
    undone: list[tuple[_Root, manifest.Run, list[StoreFile]]] = []
    for entry, run, tasks, gone in work:  # one run after the other: newest first
        results = [r.file for r in counted.results(tasks, settings, options.jobs)] + gone
        files += results
        undone.append((entry, run, results))
    downgraded = counted.results(downgrades, settings, options.jobs)
    files += [result.file for result in downgraded]
    if finishing is not None:
        finishing()
    done = RollbackRun(files, _rolled_back(undone, options.dry_run, files))
    if downgrades and not options.dry_run:
        roots = {os.path.realpath(task.conversation.root.path) for task in downgrades}
        _record_downgrades(roots, downgraded, settings.run_id or "", files)
    if not options.dry_run:
        _tidy_up(entries, options.to_start, done)
    done.files = sorted((shown_file(f) for f in files), key=lambda f: f.path)
    return done


def _rolled_back(
    undone: list[tuple[_Root, manifest.Run, list[StoreFile]]], dry_run: bool, files: list[StoreFile]
) -> list[str]:
    """The runs whose every file a PATH named is as before them; each of those it wrote
    whole is marked rolled back (the rest stay partial)."""
    rolled = []
    for entry, run, results in undone:
        if results and all(f.status in OK for f in results):
            whole = entry.covered >= {r.path.rsplit("/", 1)[0] for r in run.files}
            if whole and not dry_run and not _marked(entry, run, files):
                continue
            rolled.append(run.id)
    return rolled


def _marked(entry: _Root, run: manifest.Run, files: list[StoreFile]) -> bool:
    """The run marked rolled back; False, with a line in `files`, when that fails."""
    try:
        manifest.mark_rolled_back(entry.root.path, run.id)
    except (OSError, JpMigrateError) as exc:
        where = manifest.run_dir(entry.root.path, run.id) / manifest.ROLLED_BACK
        reason = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)
        files.append(StoreFile(path=str(where), conversation="", status="error", message=reason))
        return False
    return True


def _tidy_up(entries: list[_Root], to_start: bool, done: RollbackRun) -> None:
    """The originals parked while restoring go; after `--to-start`, the records of every
    store whose runs are all rolled back (a failure is a line, the files are restored)."""
    for entry in entries:
        try:
            manifest.clear_discards(entry.root.path)
            state = history.clear_if_undone(entry.root.path) if to_start else None
        except (OSError, JpMigrateError) as exc:
            where = manifest.state_dir(entry.root.path)
            reason = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)
            done.files.append(
                StoreFile(path=str(where), conversation="", status="error", message=reason)
            )
            continue
        if state is not None:
            done.removed.append(state)


def _record_downgrades(
    roots: set[str], results: list[Result], run_id: str, files: list[StoreFile]
) -> None:
    """The manifest of the downgrade run in each of `roots` it wrote in (none where it
    wrote nothing: a directory its abandoned writes left is removed)."""
    records: dict[str, list[manifest.FileRecord]] = {root: [] for root in roots}
    for result in results:
        if result.record is not None:
            records[os.path.realpath(result.root)].append(result.record)
    for root, written in sorted(records.items()):
        try:
            manifest.finish_run(Path(root), run_id, written, {"downgrade": True})
        except JpMigrateError as exc:  # the files are written and journaled: report it
            where = manifest.run_dir(Path(root), run_id) / manifest.MANIFEST
            files.append(
                StoreFile(path=str(where), conversation="", status="error", message=str(exc))
            )
