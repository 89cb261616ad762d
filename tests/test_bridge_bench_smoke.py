"""The bridge benchmark script runs (tiny sizes); its figures are not checked here."""

from __future__ import annotations

from conftest import run_benchmark


def test_bench_bridge_smoke() -> None:
    done = run_benchmark("bench_bridge.py", "--smoke")
    assert done.returncode == 0, done.stderr
    assert "overhead above start-up" in done.stdout and "ratio" in done.stdout
    assert "MCP tools/call, 3 interleaved: bridge " in done.stdout
