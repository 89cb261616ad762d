"""Run history: what `rollback --list` shows, and what `prune` removes.

A run is "applied" (nothing of it undone), "partial" (some of its writes undone:
a rollback of some of its conversations, one that refused a file, or one
stopped part way) or "rolled back" (all of it, `rolled-back` marks it). A run
with no manifest was interrupted; a run of `rollback --downgrade` is a downgrade.

`prune` removes run records with their backups: by default those of runs rolled
back (nothing they hold is needed any more), or the runs named, or all. A run
not finished whose process is still running is never removed. When no run is
left, the state directory goes too (and `locks/`, when nothing is in it: JP
makes it again when it needs it): nothing of jp-migrate's stays behind.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from jp_migrate.errors import JpMigrateError
from jp_migrate.files import safepath
from jp_migrate.files.write import unlink
from jp_migrate.store import manifest
from jp_migrate.store.discover import StorageRoot, resolve_all
from jp_migrate.store.lock import LOCKS_DIR


@dataclass(frozen=True)
class RunInfo:
    id: str
    files: int  # the files the run wrote
    state: str  # "applied", "partial", "rolled back"; "unreadable" for a damaged record
    note: str = ""  # "interrupted", "downgrade"; for a damaged record, why
    backups: bool = False  # it holds backups (a prune frees them)


def run_time(run_id: str) -> datetime:
    """When a run started, from its id (ids are UTC times: `manifest.new_run_id`)."""
    stamp = run_id.split("-", 1)[0]
    return datetime.strptime(stamp, "%Y%m%dT%H%M%S%fZ").replace(tzinfo=UTC)


def _info(root: Path, run_id: str) -> RunInfo:
    try:
        run = manifest.load_run(root, run_id)
        undone = manifest.undone(run)
    except JpMigrateError as exc:
        return RunInfo(run_id, 0, "unreadable", str(exc))
    state = "rolled back" if run.rolled_back else "partial" if undone else "applied"
    note = "downgrade" if run.downgrade else "" if run.complete else "interrupted"
    return RunInfo(run_id, len(run.files), state, note, any(r.backup for r in run.files))


def runs_of(root: Path) -> list[RunInfo]:
    """The runs recorded in a storage root, newest first (UnsafePath for a linked record)."""
    return [_info(root, run_id) for run_id in reversed(manifest.list_runs(root))]


def storage_roots(paths: Sequence[Path], *, user_local: bool) -> list[StorageRoot]:
    """The storage roots under `paths`, once each (a PATH naming a conversation: its store)."""
    roots: dict[str, StorageRoot] = {}
    for path in paths:
        for root, _ in resolve_all(path, user_local=user_local):
            roots.setdefault(os.path.realpath(root.path), root)
    return list(roots.values())


def _running(run_id: str) -> int | None:
    """The process of a run, when it is still running (its id names it); else None.

    On Linux a process started after the run is another one that got the same pid.
    """
    pid = int(run_id.rsplit("-", 1)[1])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid  # another user's process, alive
    started = _start_time(pid)
    if started is not None and started > run_time(run_id).timestamp() + 1:
        return None
    return pid


def _start_time(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), where /proc says it."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            ticks = int(stat.read().rsplit(b")", 1)[1].split()[19])
        with open("/proc/stat", "rb") as system:
            boot = next(int(line.split()[1]) for line in system if line.startswith(b"btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


@dataclass(frozen=True)
class PruneOptions:
    runs: tuple[str, ...] = ()  # these runs, whatever their state
    all: bool = False  # every run
    user_local: bool = True  # a workspace PATH includes JP's user-local storage of it
    dry_run: bool = False


@dataclass
class Pruned:
    removed: list[tuple[Path, RunInfo]] = field(default_factory=list)  # (state dir, run)
    kept: list[tuple[Path, RunInfo, int]] = field(default_factory=list)  # ... and its live pid
    cleared: list[Path] = field(default_factory=list)  # state directories removed whole


def prune(paths: Sequence[Path], options: PruneOptions) -> Pruned:
    """Remove run records (see the module's docstring); raises JpMigrateError for a PATH
    that names no store, a run named that no store has, or a record reached through a link."""
    for run_id in options.runs:
        manifest.checked_run_id(run_id)
    roots = storage_roots(paths, user_local=options.user_local)
    known = {run_id for root in roots for run_id in manifest.list_runs(root.path)}
    missing = [run_id for run_id in options.runs if run_id not in known]
    if missing:
        where = ", ".join(str(manifest.state_dir(root.path)) for root in roots)
        raise JpMigrateError(f"{where}: no run {missing[0]!r}")
    done = Pruned()
    for root in roots:
        state = manifest.state_dir(root.path)
        infos = runs_of(root.path)
        for info in infos:
            wanted = info.id in options.runs or (
                options.all or not options.runs and info.state == "rolled back"
            )
            if not wanted:
                continue
            pid = _running(info.id) if info.note == "interrupted" else None
            if pid is not None:
                done.kept.append((state, info, pid))
                continue
            if not options.dry_run:
                _remove_run(root.path, info.id)
            done.removed.append((state, info))
        left = len(infos) - sum(1 for where, _ in done.removed if where == state)
        if infos and not left and (options.dry_run or _clear(root.path)):
            done.cleared.append(state)
    return done


def _remove_run(root: Path, run_id: str) -> None:
    """One run's directory, with its journal and backups; a link on the way is refused."""
    safepath.exists_as_directory(root, manifest.STATE_DIR, manifest.RUNS, run_id)
    shutil.rmtree(manifest.run_dir(root, run_id))


def _clear(root: Path) -> bool:
    """The state directory removed, once no run is left in it (and an empty `locks/`): what
    jp-migrate keeps there and nothing else; False when something else is in it."""
    if not safepath.exists_as_directory(root, manifest.STATE_DIR):
        return False
    state = manifest.state_dir(root)
    manifest.clear_discards(root)
    try:
        os.rmdir(state / manifest.RUNS)
    except FileNotFoundError:
        pass
    except OSError:
        return False  # a run appeared since, or something not ours
    if set(os.listdir(state)) - {".gitignore"}:
        return False  # not ours: left, and still ignored by git
    unlink(state / ".gitignore")
    try:
        os.rmdir(state)
        os.rmdir(root / LOCKS_DIR)
    except OSError:
        pass  # something arrived since; `locks/` not there, or a lock file in it
    return not os.path.lexists(state)


def clear_if_undone(root: Path) -> Path | None:
    """After `rollback --to-start`: when every run of the root is rolled back, their records
    go, and the state directory with them (returned); None when a run still matters."""
    try:
        infos = runs_of(root)
    except JpMigrateError:
        return None
    if not infos or any(info.state != "rolled back" for info in infos):
        return None
    for info in infos:
        _remove_run(root, info.id)
    return manifest.state_dir(root) if _clear(root) else None
