"""Run records under `<root>/.jp-migrate/` (never inside `conversations/`, which JP cleans).

    .jp-migrate/.gitignore              `*`: git ignores all of it
    .jp-migrate/runs/<run-id>/manifest.json
    .jp-migrate/runs/<run-id>/journal.jsonl   one line per file, appended as it is written
    .jp-migrate/runs/<run-id>/backup/conversations/<name>.events.json   the originals (hard links)
    .jp-migrate/runs/<run-id>/rolled-back     present once the run was undone
    .jp-migrate/discard/<run-id>/…            --no-backup: originals awaiting deletion

Only a run that changed a file leaves a record. Run ids sort by time. The
journal survives a crash (the manifest is written at the end of a run), so an
interrupted run can still be rolled back. A run's journal also records each
write that undoes it (`action` "rollback"), appended the same way before the
write: a rollback stopped part way leaves the run "partial".

A run's own writes are migrations (`action` "migrate"), or, for a run made by
`rollback --downgrade` on files no run kept a backup of, downgrades ("downgrade").
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from jp_migrate.errors import JpMigrateError
from jp_migrate.files import safepath, write

NAME_MAX = 255  # bytes in one file name: ext4, XFS, btrfs, tmpfs, APFS

STATE_DIR = ".jp-migrate"
RUNS = "runs"
MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
BACKUP = "backup"
ROLLED_BACK = "rolled-back"
DISCARD = "discard"
MANIFEST_SCHEMA = "jp-migrate.store-run.v1"


@dataclass(frozen=True)
class FileRecord:
    path: str  # relative to the storage root, `/`-separated
    sha256_before: str
    sha256_after: str
    rules: list[str] = field(default_factory=list)
    events_migrated: int = 0
    backup: str | None = None  # relative to the run directory
    action: str = "migrate"  # the run's own write ("migrate", "downgrade"), or "rollback"


UNDO = "rollback"  # the action of a write that undoes one of the run's own


@dataclass(frozen=True)
class Run:
    root: Path
    id: str
    files: list[FileRecord]  # the run's own writes (not those undoing them)
    complete: bool  # False: no manifest (the run was interrupted); files come from the journal
    rolled_back: bool

    @property
    def directory(self) -> Path:
        return run_dir(self.root, self.id)

    @property
    def downgrade(self) -> bool:
        """A run of `rollback --downgrade` (undone only by naming it: `--run ID`)."""
        return bool(self.files) and all(r.action == "downgrade" for r in self.files)


_RUN_ID = re.compile(r"[0-9]{8}T[0-9]{12}Z-[0-9]+")


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ") + f"-{os.getpid()}"


def checked_run_id(run_id: str) -> str:
    """Run ids are names (`new_run_id`), never paths: `--run ../x` is refused."""
    if _RUN_ID.fullmatch(run_id) is None:
        raise JpMigrateError(
            f"--run {run_id!r}: not a run id (a run id is a name such as "
            "20261124T093000123456Z-4242, as under .jp-migrate/runs/)"
        )
    return run_id


def state_dir(root: Path) -> Path:
    return root / STATE_DIR


def run_dir(root: Path, run_id: str) -> Path:
    return Path(_run_dir(root, run_id))


def make_run_dir(root: str | os.PathLike[str], run_id: str, *parts: str) -> str:
    """The run's directory (or one below it), made and checked: never through a link."""
    return safepath.directory(root, STATE_DIR, RUNS, checked_run_id(run_id), *parts)


# The per-conversation paths below are strings (see `discover.Conversation`).
def _run_dir(root: str | os.PathLike[str], run_id: str) -> str:
    return os.path.join(root, STATE_DIR, RUNS, run_id)


def ensure_state_dir(root: Path) -> Path:
    state = Path(safepath.directory(root, STATE_DIR))
    ignore = state / ".gitignore"
    try:  # never through a link planted there, dangling or not
        fd = os.open(ignore, safepath.CREATE, 0o644)
    except FileExistsError:
        return state
    try:
        if os.write(fd, b"*\n") != 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except OSError as exc:
        _unlink_quietly(ignore)  # not left half-written
        raise OSError(exc.errno, exc.strerror, str(ignore)) from None
    finally:
        os.close(fd)
    return state


def discard_dir(root: str, run_id: str) -> str:
    """Where a `--no-backup` run parks its replaced originals until they are unlinked."""
    return safepath.directory(root, STATE_DIR, DISCARD, checked_run_id(run_id))


def clear_discards(root: Path) -> None:
    """Remove what a killed `--no-backup` run left parked: second names of replaced
    originals, never a backup (removing one early only makes its rename slower)."""
    try:
        if safepath.exists_as_directory(root, STATE_DIR, DISCARD):
            shutil.rmtree(root / STATE_DIR / DISCARD, ignore_errors=True)
    except safepath.UnsafePath:
        pass  # a link there is not followed, nor removed


def backup_name(relative: str) -> str:
    """`conversations/<name>/events.json` → `backup/conversations/<name>.events.json`.

    Flat per `conversations/` (and `.archive/`): no directory to create per conversation.
    """
    directory, _, file = relative.rpartition("/")
    if not directory:
        return f"{BACKUP}/{file}"
    parent, _, name = directory.rpartition("/")
    return f"{BACKUP}/{parent}/{flat_name(name, file)}"


def flat_name(name: str, suffix: str) -> str:
    """`<name>.<suffix>` as one file name, within NAME_MAX however long the conversation's name.

    A name too long for that is cut and given a digest of the whole, so two long
    names sharing a beginning never share a backup.
    """
    joined = f"{name}.{suffix}"
    if len(os.fsencode(joined)) <= NAME_MAX:
        return joined
    digest = hashlib.sha256(os.fsencode(name)).hexdigest()[:16]
    tail = f"~{digest}.{suffix}"
    head = os.fsencode(name)[: NAME_MAX - len(tail)]
    return head.decode("utf-8", "ignore") + tail  # a character split by the cut is dropped


def backup_path(root: str, run_id: str, relative: str) -> str:
    """Where a run keeps the original of `relative`, its directories made and checked."""
    name = backup_name(relative)
    make_run_dir(root, run_id, *name.split("/")[:-1])
    return os.path.join(_run_dir(root, run_id), name)


def append_journal(directory: str, records: list[FileRecord], *, fsync: bool = True) -> None:
    """One write of whole lines, O_APPEND, then fsync: safe from parallel workers and a crash.

    `directory` is the run's (`make_run_dir`). Called before the backups are linked and
    the files renamed, so every backup and every file a killed run replaced has a record.
    `fsync=False` when the caller's batch sync makes the journal durable before the renames.
    """
    if not records:
        return
    lines = b"".join(_json_line(_plain(r)) for r in records)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(os.path.join(directory, JOURNAL), flags, 0o644)
    try:
        written = os.write(fd, lines)
        if written != len(lines):  # a full disk takes part of a write: the line is torn
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _json_line(item: dict[str, Any]) -> bytes:
    """One JSON line. A name that is not UTF-8 (held as surrogate escapes) is written as
    `\\udcXX` escapes, which read back to the same name; orjson refuses such strings."""
    try:
        return orjson.dumps(item, option=orjson.OPT_SORT_KEYS) + b"\n"
    except orjson.JSONEncodeError:
        return json.dumps(item, sort_keys=True, separators=(",", ":")).encode("ascii") + b"\n"


def _plain(record: FileRecord) -> dict[str, Any]:
    """`asdict` without its deep copy (every field is a str, an int, a list of str or None)."""
    return {name: getattr(record, name) for name in FileRecord.__dataclass_fields__}


def finish_run(
    root: Path, run_id: str, records: list[FileRecord], options: dict[str, Any]
) -> Path | None:
    """Write the manifest, or remove the run directory when nothing changed: then what it
    holds (a journal and backups of writes that were abandoned) names no replaced file."""
    directory = run_dir(root, run_id)
    if not records:
        if safepath.exists_as_directory(root, STATE_DIR, RUNS, checked_run_id(run_id)):
            shutil.rmtree(directory)
        return None
    make_run_dir(root, run_id)
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "run": run_id,
        "options": options,
        "files": [_plain(r) for r in sorted(records, key=lambda r: r.path)],
    }
    try:
        data = orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n"
    except orjson.JSONEncodeError:  # a name that is not UTF-8: see _json_line
        data = json.dumps(manifest, indent=2).encode("ascii") + b"\n"
    try:
        write.install(directory / f".{MANIFEST}.partial", directory / MANIFEST, data)
    except OSError as exc:  # the journal still records the run: rollback works without this
        raise JpMigrateError(
            f"{directory / MANIFEST}: not written ({exc.strerror or exc}); "
            f"the run's journal beside it still records every file for rollback"
        ) from None
    return directory


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _records(raw: list[Any], where: Path) -> list[FileRecord]:
    """Records as read, each path re-derived inside the store: a forged one is refused."""
    try:
        records = [FileRecord(**item) for item in raw]
    except TypeError as exc:
        raise JpMigrateError(f"{where}: not a jp-migrate run record: {exc}") from None
    for record in records:
        if not isinstance(record.path, str) or (
            record.backup is not None and not isinstance(record.backup, str)
        ):
            raise JpMigrateError(f"{where}: not a jp-migrate run record: a path is not a string")
        try:
            safepath.recorded_path(record.path)
        except safepath.UnsafePath as exc:
            raise JpMigrateError(f"{where}: forged or damaged run record: {exc}") from None
        if record.backup is not None and record.backup != backup_name(record.path):
            raise JpMigrateError(
                f"{where}: forged or damaged run record: backup {record.backup!r} is not "
                f"where this run keeps {record.path!r}"
            )
    return records


def kept_backup(run: Run, record: FileRecord) -> Path | None:
    """The backup a run kept of a file, derived from the file's path (never read from the
    record) inside the run's own directories; None when the run kept none."""
    if record.backup is None:
        return None
    name = backup_name(record.path)
    safepath.exists_as_directory(run.root, STATE_DIR, RUNS, run.id, *name.split("/")[:-1])
    return run.directory / name  # every directory on the way checked: a link is refused


def has_run(root: Path, run_id: str) -> bool:
    return safepath.exists_as_directory(root, STATE_DIR, RUNS, checked_run_id(run_id))


def _read(path: Path) -> str | None:
    """A record file's text, or None when absent; a link there is refused, not followed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as file:
        return file.read().decode("utf-8")


def load_run(root: Path, run_id: str) -> Run:
    directory = run_dir(root, run_id)
    if not has_run(root, run_id):
        raise JpMigrateError(f"{state_dir(root) / RUNS}: no run {run_id!r}")
    rolled_back = os.path.lexists(directory / ROLLED_BACK)
    manifest = directory / MANIFEST
    try:
        text = _read(manifest)
        if text is not None:
            data = json.loads(text)
            return Run(root, run_id, _records(data["files"], manifest), True, rolled_back)
        journal = directory / JOURNAL
        latest: dict[str, Any] = {}
        for item in _journal_lines(journal):
            if item.get("action") != UNDO:
                latest.setdefault(item["path"], item)  # the first write holds the original backup
        return Run(root, run_id, _records(list(latest.values()), journal), False, rolled_back)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise JpMigrateError(f"{directory}: unreadable run record: {exc}") from None


def _journal_lines(journal: Path) -> list[Any]:
    """The journal's records. Every record ends with a newline: a run killed inside its write
    leaves a torn last line, whose batch was never renamed into place (renames follow the
    fsync), so it is left out."""
    lines = (_read(journal) or "").split("\n")
    return [json.loads(line) for line in lines[:-1] if line.strip()]


def undone(run: Run) -> set[str]:
    """The files (relative paths) whose undoing the run's journal records."""
    try:
        items = _journal_lines(run.directory / JOURNAL)
        return {item["path"] for item in items if item.get("action") == UNDO}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise JpMigrateError(f"{run.directory}: unreadable run record: {exc}") from None


def list_runs(root: Path) -> list[str]:
    """Run ids, oldest first (directories only, by their own names: a link is not a run)."""
    if not safepath.exists_as_directory(root, STATE_DIR, RUNS):
        return []
    with os.scandir(state_dir(root) / RUNS) as entries:
        return sorted(
            e.name for e in entries if e.is_dir(follow_symlinks=False) and _RUN_ID.fullmatch(e.name)
        )


def mark_rolled_back(root: Path, run_id: str) -> None:
    safepath.write_new(Path(make_run_dir(root, run_id)) / ROLLED_BACK, b"")
