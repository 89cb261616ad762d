"""The bridge benchmark script runs (tiny sizes); its figures are not checked here."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_bench_bridge_smoke() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "bench_bridge.py"), "--smoke"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "overhead above start-up" in done.stdout and "ratio" in done.stdout
