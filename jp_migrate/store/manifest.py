"""Run records under `<root>/.jp-migrate/` (never inside `conversations/`, which JP cleans).

    .jp-migrate/.gitignore              `*`: git ignores all of it
    .jp-migrate/runs/<run-id>/manifest.json
    .jp-migrate/runs/<run-id>/journal.jsonl   one line per file, appended as it is written
    .jp-migrate/runs/<run-id>/backup/conversations/<name>.events.json   the originals (hard links)
    .jp-migrate/runs/<run-id>/rolled-back     present once the run was undone
    .jp-migrate/discard/<run-id>/…            --no-backup: originals awaiting deletion

Only a run that changed a file leaves a record. Run ids sort by time. The
journal survives a crash (the manifest is written at the end of a run), so an
interrupted run can still be rolled back.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from jp_migrate.errors import JpMigrateError

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
    action: str = "migrate"  # or "rollback", "downgrade"


@dataclass(frozen=True)
class Run:
    root: Path
    id: str
    files: list[FileRecord]
    complete: bool  # False: no manifest (the run was interrupted); files come from the journal
    rolled_back: bool

    @property
    def directory(self) -> Path:
        return run_dir(self.root, self.id)


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ") + f"-{os.getpid()}"


def state_dir(root: Path) -> Path:
    return root / STATE_DIR


def run_dir(root: Path, run_id: str) -> Path:
    return Path(_run_dir(root, run_id))


# The per-conversation paths below are strings (see `discover.Conversation`).
def _run_dir(root: str | os.PathLike[str], run_id: str) -> str:
    return os.path.join(root, STATE_DIR, RUNS, run_id)


def _discard_dir(root: str | os.PathLike[str]) -> str:
    return os.path.join(root, STATE_DIR, DISCARD)


def ensure_state_dir(root: Path) -> Path:
    state = state_dir(root)
    state.mkdir(exist_ok=True)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", "utf-8")
    return state


def backup_name(relative: str) -> str:
    """`conversations/<name>/events.json` → `backup/conversations/<name>.events.json`.

    Flat per `conversations/` (and `.archive/`): no directory to create per conversation.
    """
    directory, _, file = relative.rpartition("/")
    return f"{BACKUP}/{directory}.{file}" if directory else f"{BACKUP}/{file}"


def discard_path(root: str, run_id: str, conversation: str) -> str:
    """Where a `--no-backup` run parks an original until it is unlinked (`migrate._drop`)."""
    return os.path.join(_discard_dir(root), run_id, conversation.replace("/", "."))


def clear_discards(root: Path) -> None:
    """Remove what a killed `--no-backup` run left parked (never a backup)."""
    directory = _discard_dir(root)
    if os.path.isdir(directory):
        shutil.rmtree(directory, ignore_errors=True)


def backup_path(root: str, run_id: str, relative: str) -> str:
    return os.path.join(_run_dir(root, run_id), backup_name(relative))


def append_journal(
    root: Path, run_id: str, records: list[FileRecord], *, fsync: bool = True
) -> None:
    """One write of whole lines, O_APPEND, then fsync: safe from parallel workers and a crash.

    Called before the files are renamed, so every file a killed run replaced has a record.
    `fsync=False` when the caller's batch sync makes the journal durable before the renames.
    """
    if not records:
        return
    directory = run_dir(root, run_id)
    directory.mkdir(parents=True, exist_ok=True)
    lines = b"".join(orjson.dumps(_plain(r), option=orjson.OPT_SORT_KEYS) + b"\n" for r in records)
    fd = os.open(directory / JOURNAL, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, lines)
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


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
        if directory.is_dir():
            shutil.rmtree(directory)
        return None
    directory.mkdir(parents=True, exist_ok=True)
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "run": run_id,
        "options": options,
        "files": [_plain(r) for r in sorted(records, key=lambda r: r.path)],
    }
    tmp = directory / f".{MANIFEST}.partial"
    tmp.write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2) + b"\n")
    os.replace(tmp, directory / MANIFEST)
    return directory


def _records(raw: list[Any], where: Path) -> list[FileRecord]:
    try:
        return [FileRecord(**item) for item in raw]
    except TypeError as exc:
        raise JpMigrateError(f"{where}: not a jp-migrate run record: {exc}") from None


def load_run(root: Path, run_id: str) -> Run:
    directory = run_dir(root, run_id)
    if not directory.is_dir():
        raise JpMigrateError(f"{state_dir(root) / RUNS}: no run {run_id!r}")
    rolled_back = (directory / ROLLED_BACK).exists()
    manifest = directory / MANIFEST
    try:
        if manifest.exists():
            data = json.loads(manifest.read_text("utf-8"))
            return Run(root, run_id, _records(data["files"], manifest), True, rolled_back)
        journal = directory / JOURNAL
        lines = journal.read_text("utf-8").split("\n") if journal.exists() else []
        # Every record ends with a newline. A run killed inside its write leaves a torn last
        # line; that batch was never renamed into place (renames follow the fsync): left out.
        latest: dict[str, Any] = {}
        for line in lines[:-1]:
            if line.strip():
                item = json.loads(line)
                latest.setdefault(item["path"], item)  # the first write holds the original backup
        return Run(root, run_id, _records(list(latest.values()), journal), False, rolled_back)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise JpMigrateError(f"{directory}: unreadable run record: {exc}") from None


def list_runs(root: Path) -> list[str]:
    """Run ids, oldest first."""
    directory = state_dir(root) / RUNS
    if not directory.is_dir():
        return []
    return sorted(p.name for p in directory.iterdir() if p.is_dir())


def mark_rolled_back(root: Path, run_id: str) -> None:
    (run_dir(root, run_id) / ROLLED_BACK).write_text("", "utf-8")
