"""Shared by the adapter tests: `jp-migrate verify` of an adapted workspace against its original."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def verify(
    original: Path,
    adapted: Path,
    tool: str,
    cases: Path,
    report: Path,
    *,
    exits: tuple[int, ...] = (0,),
) -> dict:
    """The JSON report of verifying `tool` before (original) and after (adapted); `exits`:
    the exit codes allowed (1: a mismatch, 2: a case could not run)."""
    done = run_cli(
        "verify",
        "--before-workspace",
        str(original),
        "--after-workspace",
        str(adapted),
        "--tool",
        tool,
        "--cases",
        str(cases),
        "--report",
        f"json={report}",
    )
    assert done.returncode in exits, done.stdout + done.stderr
    return json.loads(report.read_text())
