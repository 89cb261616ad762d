"""What a store run is asked to do, and what it gives back per conversation (both picklable:
`--jobs` workers get the one and send the other)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from jp_migrate.contract.report import StoreFile
from jp_migrate.store import manifest

Mode = Literal["write", "dry-run", "check"]
Encoding = Literal["auto", "base64", "plain"]
Action = Literal["migrate", "downgrade", "rollback"]  # what a write does (see manifest)


@dataclass(frozen=True)
class Settings:
    mode: Mode = "write"
    diff: bool = False
    encoding: Encoding = "auto"
    rules: tuple[str, ...] = ()
    matches: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    backup: bool = True
    run_id: str | None = None


@dataclass(frozen=True)
class Result:
    file: StoreFile
    record: manifest.FileRecord | None = None  # for a committed write: its journal line
    root: str = ""  # ... the storage root it was written in
    run_id: str = ""  # ... and the run whose journal holds that line
