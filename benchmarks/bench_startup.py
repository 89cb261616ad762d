"""Start-up benchmark: `jp-migrate --help` against `python -c "import click"` (issue 2).

Runs the two commands alternately N times (so machine noise hits both alike),
prints each median and the ratio, and exits 1 when the ratio exceeds the limit.

    python benchmarks/bench_startup.py [-n 30] [--limit 1.5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path


def help_command() -> list[str]:
    """The console script installed beside this Python (else on PATH), or `python -m jp_migrate`.

    Beside `sys.executable` first, so a venv measures its own script, and a
    version manager's shell shim on PATH is not timed as if it were ours.
    """
    beside = Path(sys.executable).with_name("jp-migrate")
    script = str(beside) if beside.is_file() else shutil.which("jp-migrate")
    return [script, "--help"] if script else [sys.executable, "-m", "jp_migrate", "--help"]


BASELINE = [sys.executable, "-c", "import click"]


def run_once(command: Sequence[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(
            f"error: {' '.join(command)} exited {done.returncode}: {done.stderr.decode()[-500:]}"
        )
    return elapsed


def measure(
    candidate: Sequence[str], baseline: Sequence[str], runs: int
) -> tuple[list[float], list[float]]:
    """Alternate the two commands `runs` times each, after one untimed warm-up of each."""
    run_once(candidate)
    run_once(baseline)
    ours: list[float] = []
    base: list[float] = []
    for _ in range(runs):
        ours.append(run_once(candidate))
        base.append(run_once(baseline))
    return ours, base


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "-n", "--runs", type=int, default=30, help="runs of each command (default 30)"
    )
    parser.add_argument(
        "--limit", type=float, default=1.5, help="highest acceptable ratio (default 1.5)"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    candidate = help_command()
    ours, base = measure(candidate, BASELINE, args.runs)
    ours_median, base_median = statistics.median(ours), statistics.median(base)
    ratio = ours_median / base_median
    print(f"{' '.join(candidate)}: median {ours_median * 1000:.1f} ms over {args.runs} runs")
    print(f"{' '.join(BASELINE)}: median {base_median * 1000:.1f} ms over {args.runs} runs")
    verdict = "ok" if ratio <= args.limit else "TOO SLOW"
    print(f"ratio {ratio:.2f} (limit {args.limit:.2f}): {verdict}")
    return 0 if ratio <= args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
