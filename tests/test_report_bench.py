"""Smoke test of the report benchmark script (the real figures use the defaults)."""

from __future__ import annotations

from conftest import run_benchmark


def test_bench_reports_runs_on_a_small_report() -> None:
    done = run_benchmark(
        "bench_reports.py", "--files", "60", "--repeat", "1", "--limit", "1000", timeout=120
    )
    assert done.returncode == 0, done.stderr
    for fmt in ("json", "junit", "markdown", "sarif", "terminal"):
        assert f"\n{fmt} " in done.stdout
