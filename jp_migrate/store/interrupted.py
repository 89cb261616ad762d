"""After Ctrl-C: which conversations this process's run had written, to say so and how to undo."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from jp_migrate.errors import JpMigrateError
from jp_migrate.store import manifest
from jp_migrate.store.discover import resolve_all


def run_id_floor() -> str:
    """A run id no run of this process started before `now` can sort above (ids sort by time)."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


@dataclass(frozen=True)
class Written:
    root: Path  # the storage root
    run_id: str
    files: int  # conversations it replaced (their bytes now are what the run wrote); -1 unknown

    @property
    def directory(self) -> Path:  # the run's record
        return manifest.run_dir(self.root, self.run_id)


def written_since(paths: Sequence[Path], floor: str, *, user_local: bool) -> list[Written]:
    """This process's runs under `paths` since `floor`, and how many of their files were replaced.

    The journal names a batch before it is made durable, so a file it names may not have
    been replaced: only a file whose bytes are the run's output counts.
    """
    found: list[Written] = []
    roots: dict[str, Path] = {}
    for path in paths:
        try:
            for root, _ in resolve_all(path, user_local=user_local):
                roots.setdefault(os.path.realpath(root.path), root.path)
        except JpMigrateError:
            continue
    suffix = f"-{os.getpid()}"
    for root in roots.values():
        for run_id in manifest.list_runs(root):
            if run_id < floor or not run_id.endswith(suffix):
                continue
            try:
                run = manifest.load_run(root, run_id)
            except JpMigrateError:
                found.append(Written(root, run_id, -1))  # -1: unreadable
                continue
            replaced = sum(
                1 for record in run.files if _now(root / record.path) == record.sha256_after
            )
            found.append(Written(root, run_id, replaced))
    return found


def forget(run: Written) -> None:
    """The record of an interrupted run that replaced no file: it has nothing to undo (its
    journal names only writes abandoned before their rename)."""
    assert run.files == 0
    manifest.finish_run(run.root, run.run_id, [], {})


def _now(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
