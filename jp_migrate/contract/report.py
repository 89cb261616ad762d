"""The one report model every command writes (JSON, Markdown, JUnit, SARIF render from it).

Deterministic by design (SPEC §4): no timestamps or durations unless the run
asked for timings, lists in a stable order, paths relative to what the user named.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, JsonValue

from jp_migrate.contract._base import Closed, JsonInt

REPORT_SCHEMA_VERSION = "jp-migrate.report.v1"

FileStatus = Literal[
    "migrated",  # written (or, in a dry run, would be written)
    "unchanged",  # nothing to do
    "error",  # bad input: named in `message`, file untouched
    "skipped",  # excluded, locked, or unsupported layout
]


class Repair(Closed):
    """A stored payload that had to be repaired while decoding (URL-safe base64 today)."""

    event_index: JsonInt
    event_id: str
    field: str
    kind: Literal["urlsafe-base64"]


class StoreFile(Closed):
    path: str
    conversation: str
    status: FileStatus
    message: str = ""
    events_total: JsonInt = 0
    events_migrated: JsonInt = 0
    repairs: list[Repair] = Field(default_factory=list)
    rules: list[str] = Field(default_factory=list)
    sha256_before: str | None = None
    sha256_after: str | None = None
    diff: str | None = None
    # `conversations --check-integrity`: what failed (exit 1) and what is only worth knowing.
    problems: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class Site(Closed):
    """One place in a tool source the codemod acted on or could not handle."""

    line: JsonInt
    column: JsonInt
    rule: str
    action: Literal["rewritten", "unhandled"]
    reason: str = ""


class ToolFile(Closed):
    path: str
    status: FileStatus
    message: str = ""
    # Where a source that does not parse breaks (1-based; column 0: unknown); absent otherwise.
    line: JsonInt | None = None
    column: JsonInt | None = None
    sites: list[Site] = Field(default_factory=list)
    diff: str | None = None


class VerifyCase(Closed):
    index: JsonInt
    verdict: Literal["match", "expected", "mismatch", "error"]
    differences: list[str] = Field(default_factory=list)
    inputs: dict[str, JsonValue] = Field(default_factory=dict)
    control: dict[str, JsonValue] | None = None
    candidate: dict[str, JsonValue] | None = None
    message: str = ""


class Totals(Closed):
    files: JsonInt = 0
    changed: JsonInt = 0
    unchanged: JsonInt = 0
    errors: JsonInt = 0
    skipped: JsonInt = 0
    events_migrated: JsonInt = 0
    repairs: JsonInt = 0
    unhandled_sites: JsonInt = 0
    cases: JsonInt = 0
    mismatches: JsonInt = 0
    # Store files `--check-integrity` found problems in (counted here, not in `errors`).
    problems: JsonInt = 0


class Report(Closed):
    schema_version: Literal["jp-migrate.report.v1"] = REPORT_SCHEMA_VERSION
    command: str
    dry_run: bool = False
    exit_code: JsonInt = 0
    totals: Totals = Field(default_factory=Totals)
    store: list[StoreFile] | None = None
    tools: list[ToolFile] | None = None
    verify: list[VerifyCase] | None = None
    timings: dict[str, float] | None = None
