"""examples/demo.sh, the README's main job, end to end: dry run, migration, verification."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from bridge_support import python_on_path
from conftest import EXAMPLES

SECTIONS = (
    "== 1. Dry run",
    "== 2a. Migrate the conversation store",
    "== 2b. Migrate the Python tools",
    "== 3a. Verify the migrated store",
    "== 3b. The tools before vs after migration",
    "== 3c. The MCP tools",
    "== 3d. Nothing left to migrate",
    "== Done ==",
)


def snapshot(root: Path) -> dict[str, bytes]:
    skip = ("__pycache__", ".pytest_cache")
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not any(part in skip for part in p.parts)
    }


def run_demo(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(EXAMPLES / "demo.sh")],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        # `python3` (the example MCP server's command) must be this Python, which has `mcp`
        env={**os.environ, **python_on_path(), "TMPDIR": str(tmp_path), "NO_COLOR": "1", **env},
    )


def test_demo_runs_the_whole_pipeline_in_a_scratch_copy(tmp_path: Path) -> None:
    before = snapshot(EXAMPLES)
    started = time.monotonic()
    result = run_demo(tmp_path, JP_MIGRATE=f"{sys.executable} -m jp_migrate")
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    positions = [result.stdout.find(s) for s in SECTIONS]
    assert -1 not in positions and positions == sorted(positions), positions
    assert "would migrate" in result.stdout  # the dry run showed what would change
    last = result.stdout.split("== 3d.")[1]
    assert "0 would change" in last  # and nothing is left after
    # As the README says: the tools are migrated, so every case is the expected difference
    # of the legacy host reading an envelope as raw text.
    assert "12 verify cases, 0 mismatches" in last
    assert last.count("content-array-parsed") == 12
    verified = result.stdout.split("== 3b.")[1].split("== 3d.")[0]
    assert "mismatch" not in verified.replace("0 mismatches", "")
    assert verified.count(" cases: ") == 9  # 4 local tools, 5 MCP tools with cases
    assert snapshot(EXAMPLES) == before  # the checkout's examples are untouched
    assert list(tmp_path.iterdir()) == []  # the scratch copy is cleaned up
    assert elapsed < 120  # the README promises under a minute on a laptop; CI machines are shared


def test_demo_fails_when_a_step_does_not_behave(tmp_path: Path) -> None:
    # A "jp-migrate" whose every command succeeds: the dry run should have found work (exit 1).
    fake = tmp_path / "fake-jp-migrate"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    result = run_demo(tmp_path, JP_MIGRATE=str(fake))
    assert result.returncode == 1
    assert "demo: expected exit code 1, got 0" in result.stderr


def test_demo_names_a_missing_executable(tmp_path: Path) -> None:
    result = run_demo(tmp_path, JP_MIGRATE="no-such-jp-migrate-here")
    assert result.returncode == 2 and "not found" in result.stderr
