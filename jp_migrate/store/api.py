"""The store capability's public API: migrate, verify and roll back conversation stores.

No printing here: every conversation becomes a `StoreFile` (bad input included,
as `status="error"` with a one-line message); only a bad PATH or option raises
JpMigrateError. The CLI (`store.cli`) and `jp-migrate check` render the results.
"""

from __future__ import annotations

import errno
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from jp_migrate.contract.report import StoreFile
from jp_migrate.errors import JpMigrateError
from jp_migrate.files import safepath
from jp_migrate.store import lock, manifest
from jp_migrate.store.discover import Conversation, Found, Rejected, discover, path_error
from jp_migrate.store.layout import inspect
from jp_migrate.store.lock import LOCKS_DIR
from jp_migrate.store.migrate import Migrate, Mode, Result, Settings
from jp_migrate.store.names import shown_file
from jp_migrate.store.pipeline import Task, failed, sweep
from jp_migrate.store.selection import select_rules
from jp_migrate.store.workers import run_jobs

Progress = Callable[[int, int], None]  # (done, total)
Finishing = Callable[[], None]  # called once the work is done, before it is recorded


@dataclass(frozen=True)
class StoreOptions:
    dry_run: bool = False
    check: bool = False
    diff: bool = False
    verify: bool = False
    encoding: Literal["auto", "base64", "plain"] = "auto"
    rules: Sequence[str | Path] = ()  # store rule ids, or directories of rule files
    exclude_archived: bool = False
    user_local: bool = True  # a workspace PATH includes JP's user-local storage of it
    backup: bool = True
    jobs: int = 1
    shard: tuple[int, int] | str | None = None  # (K, N) or "K/N", K in 1..N

    @property
    def writes(self) -> bool:
        return not (self.dry_run or self.check or self.verify)


@dataclass
class StoreRun:
    files: list[StoreFile]
    runs: list[Path] = field(default_factory=list)  # run directories written (one per storage root)


def _decimal(text: str) -> bool:
    """Digits `int()` takes (`isdigit()` also takes `²`, which it does not)."""
    return text.strip().isdecimal()


def parse_shard(shard: tuple[int, int] | str | None) -> tuple[int, int] | None:
    if shard is None:
        return None
    if isinstance(shard, str):
        k, sep, n = shard.partition("/")
        if not sep or not _decimal(k) or not _decimal(n):
            raise JpMigrateError(f"--shard {shard}: expected K/N, e.g. 1/4")
        shard = (int(k), int(n))
    index, count = shard
    if count < 1 or not 1 <= index <= count:
        raise JpMigrateError(f"--shard {index}/{count}: K must be between 1 and N")
    return index, count


def _rejected(item: Rejected) -> StoreFile:
    c = item.conversation
    return StoreFile(path=c.shown, conversation=c.name, status=item.status, message=item.message)  # type: ignore[arg-type]


def _directory_error(path: Path, reason: str) -> StoreFile:
    """One line for a directory every conversation of a store shares (its state, its locks)."""
    prefix = f"{path}: "
    message = reason.removeprefix(prefix)
    return StoreFile(path=str(path), conversation="", status="error", message=message)


def _unusable_roots(conversations: Iterable[Conversation]) -> dict[Path, tuple[Path, str]]:
    """Storage roots whose state or lock directory cannot be written safely: root → (the
    directory, why). Their conversations are left as they are, with one line for the root."""
    bad: dict[Path, tuple[Path, str]] = {}
    for root in {c.root.path: c.root for c in conversations}.values():
        state = manifest.state_dir(root.path)
        shared = [state, state / manifest.RUNS] + [
            Path(lock_root) / LOCKS_DIR for lock_root in root.lock_roots
        ]
        for directory in shared:
            try:
                if not os.path.lexists(directory):
                    _creatable(directory)  # made when first needed: said once if it cannot be
                    continue
                safepath.directory(directory.parent, directory.name)
                probe = directory / f".jp-migrate-probe-{os.getpid()}"
                os.close(safepath.create_new(probe))
                os.unlink(probe)
            except (JpMigrateError, OSError) as exc:
                reason = str(exc) if isinstance(exc, JpMigrateError) else exc.strerror or str(exc)
                bad[root.path] = (directory, f"{reason}: no conversation of this store migrated")
                break
    return bad


def _creatable(directory: Path) -> None:
    """OSError when `directory` could not be made (a read-only filesystem; a directory the
    user may not write), judged without writing: a dry run of it writes nothing either."""
    parent = directory.parent
    while not os.path.lexists(parent) and parent != parent.parent:
        parent = parent.parent
    if os.statvfs(parent).f_flag & os.ST_RDONLY:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(parent))
    if os.geteuid() != 0 and not os.access(parent, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, os.strerror(errno.EACCES), str(parent))


def run_all(
    tasks: list[Task],
    settings: Settings,
    jobs: int,
    progress: Progress | None,
    *,
    verify: bool = False,
) -> Iterable[Result]:
    """Every task's result (on `jobs` processes), `progress` told as they come."""
    total = len(tasks)
    done = 0
    if progress:
        progress(done, total)
    for results in run_jobs(tasks, settings, verify, jobs):
        for result in results:
            done += 1
            yield result
        if progress:
            progress(done, total)


def run_stores(
    paths: Sequence[Path],
    options: StoreOptions,
    *,
    progress: Progress | None = None,
    finishing: Finishing | None = None,
) -> StoreRun:
    """Migrate (or check, dry-run, verify) every conversation under `paths`: a report line
    each. `finishing` is called once every conversation is done, before the run is
    recorded (the CLI holds Ctrl-C from there until it has said what the run did)."""
    if not paths:
        raise JpMigrateError("no PATH given")
    if options.jobs < 1:
        raise JpMigrateError(f"--jobs {options.jobs}: must be at least 1")
    rule_ids, matches = select_rules(options.rules)
    unresolved: list[tuple[Path, str]] = []
    found: list[Found] = discover(
        [Path(p) for p in paths],
        exclude_archived=options.exclude_archived,
        shard=parse_shard(options.shard),
        user_local=options.user_local,
        errors=unresolved,
    )
    run_id = manifest.new_run_id() if options.writes else None
    mode: Mode = "check" if options.check else "write" if options.writes else "dry-run"
    settings = Settings(
        mode=mode,
        diff=options.diff,
        encoding=options.encoding,
        rules=rule_ids,
        matches=matches,
        backup=options.backup,
        run_id=run_id,
    )
    files = [path_error(path, reason) for path, reason in unresolved]
    files += [_rejected(item) for item in found if isinstance(item, Rejected)]
    conversations = [item for item in found if isinstance(item, Conversation)]
    if run_id is not None:
        unusable = _unusable_roots(conversations)
        files += [_directory_error(path, reason) for path, reason in unusable.values()]
        conversations = [c for c in conversations if c.root.path not in unusable]
    roots = sorted({c.root.path for c in conversations})
    lock_roots = sorted({r for c in conversations for r in c.root.lock_roots})
    if run_id is not None:
        sweep(conversations)
    # By real path: one store named twice (a symlink, two PATHs) has one run record,
    # which a second manifest.json for it would overwrite.
    records: dict[str, list[manifest.FileRecord]] = defaultdict(list)
    real: dict[str, str] = {}  # root → its real path, resolved once (a lstat per component)
    tasks: list[Task] = []
    for conversation in conversations:
        if run_id is not None and not os.path.lexists(conversation.events):
            try:  # nothing to migrate (messages.json, metadata only): refused before any lock
                inspect(conversation)
            except Exception as exc:  # noqa: BLE001 - failed() re-raises what is no input problem
                files.append(failed(conversation, exc))
                continue
        tasks.append(Migrate(conversation))
    try:
        for result in run_all(tasks, settings, options.jobs, progress, verify=options.verify):
            files.append(result.file)
            if result.record is not None:
                if result.root not in real:
                    real[result.root] = os.path.realpath(result.root)
                records[real[result.root]].append(result.record)
    finally:
        if run_id is not None:  # like JP, leave no lock file behind, Ctrl-C or not
            for lock_root in lock_roots:
                lock.sweep(lock_root)
    if finishing is not None:
        finishing()
    run_dirs: list[Path] = []
    if run_id is not None:
        opts = {"encoding": options.encoding, "rules": list(rule_ids), "backup": options.backup}
        # Every store: one whose writes were all abandoned may hold an empty run directory.
        for root in sorted(set(records) | {os.path.realpath(path) for path in roots}):
            try:
                written = manifest.finish_run(Path(root), run_id, records.get(root, []), opts)
            except JpMigrateError as exc:  # the files are written and journaled: report it
                where = manifest.run_dir(Path(root), run_id) / manifest.MANIFEST
                files.append(_directory_error(where, str(exc)))
                continue
            if written is not None:
                run_dirs.append(written)
        for root in roots:
            manifest.clear_discards(root)
    files = [shown_file(f) for f in files]
    files.sort(key=lambda f: f.path)
    return StoreRun(files, run_dirs)


def migrate_stores(paths: Sequence[Path], options: StoreOptions) -> list[StoreFile]:
    """Migrate (or check, dry-run, verify) every conversation under `paths`."""
    return run_stores(paths, options).files


__all__ = ["StoreOptions", "StoreRun", "migrate_stores", "parse_shard", "run_stores"]
