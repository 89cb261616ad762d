"""The one report model every command writes (JSON, Markdown, JUnit, SARIF render from it).

Deterministic by design (SPEC §4): no timestamps or durations unless the run
asked for timings, lists in a stable order, paths relative to what the user named.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from jp_migrate.contract._base import Closed

REPORT_SCHEMA_VERSION = "jp-migrate.report.v1"

FileStatus = Literal[
    "migrated",  # written (or, in a dry run, would be written)
    "unchanged",  # nothing to do
    "error",  # bad input: named in `message`, file untouched
    "skipped",  # excluded, locked, or unsupported layout
]


class Repair(Closed):
    """A stored payload that had to be repaired while decoding (URL-safe base64 today)."""

    event_index: int
    event_id: str
    field: str
    kind: Literal["urlsafe-base64"]


class StoreFile(Closed):
    path: str
    conversation: str
    status: FileStatus
    message: str = ""
    events_total: int = 0
    events_migrated: int = 0
    repairs: list[Repair] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list)
    sha256_before: str | None = None
    sha256_after: str | None = None
    diff: str | None = None


class Site(Closed):
    """One place in a tool source the codemod acted on or could not handle."""

    line: int
    column: int
    rule: str
    action: Literal["rewritten", "unhandled"]
    reason: str = ""


class ToolFile(Closed):
    path: str
    status: FileStatus
    message: str = ""
    sites: list[Site] = Field(default_factory=list)
    diff: str | None = None


class VerifyCase(Closed):
    index: int
    verdict: Literal["match", "expected", "mismatch", "error"]
    differences: list[str] = Field(default_factory=list)
    inputs: dict[str, JsonValue] = Field(default_factory=dict)
    control: dict[str, JsonValue] | None = None
    candidate: dict[str, JsonValue] | None = None
    message: str = ""


class Totals(Closed):
    files: int = 0
    changed: int = 0
    unchanged: int = 0
    errors: int = 0
    skipped: int = 0
    events_migrated: int = 0
    repairs: int = 0
    unhandled_sites: int = 0
    cases: int = 0
    mismatches: int = 0


class Report(Closed):
    schema_version: Literal["jp-migrate.report.v1"] = REPORT_SCHEMA_VERSION
    command: str
    dry_run: bool = False
    exit_code: int = 0
    totals: Totals = Field(default_factory=Totals)
    store: list[StoreFile] | None = None
    tools: list[ToolFile] | None = None
    verify: list[VerifyCase] | None = None
    timings: dict[str, float] | None = None
