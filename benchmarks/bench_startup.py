"""Start-up benchmark: jp-migrate's cheapest runs against `python -c "import click"`.

Three runs are measured, each as a ratio to the baseline (the interpreter and
click, which every command needs):

    --help                                    limit 1.5 (--limit)
    conversations --check  on an empty store  limit 3   (--command-limit)
    tools --check          on one file the pre-check rules out (no Outcome in it)

All four commands run in turn N times (so machine noise hits them alike), after
one untimed warm-up each; the script prints each median and each ratio of
medians, and exits 1 when a ratio exceeds its limit.

    python benchmarks/bench_startup.py [-n 30] [--limit 1.5] [--command-limit 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PLAIN_TOOL = 'import sys\n\nprint("hello", file=sys.stdout)\n'


def script() -> list[str]:
    """The console script installed beside this Python (else on PATH), or `python -m jp_migrate`.

    Beside `sys.executable` first, so a venv measures its own script, and a
    version manager's shell shim on PATH is not timed as if it were ours.
    """
    beside = Path(sys.executable).with_name("jp-migrate")
    found = str(beside) if beside.is_file() else shutil.which("jp-migrate")
    return [found] if found else [sys.executable, "-m", "jp_migrate"]


BASELINE = [sys.executable, "-c", "import click"]


def run_once(command: Sequence[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(
            f"error: {' '.join(command)} exited {done.returncode}: {done.stderr.decode()[-500:]}"
        )
    return elapsed


def measure(commands: Sequence[Sequence[str]], runs: int, cwd: Path) -> list[list[float]]:
    """Each command `runs` times, in turn, after one untimed warm-up of each."""
    for command in commands:
        run_once(command, cwd)
    times: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for command, samples in zip(commands, times, strict=True):
            samples.append(run_once(command, cwd))
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "-n", "--runs", type=int, default=30, help="runs of each command (default 30)"
    )
    parser.add_argument(
        "--limit", type=float, default=1.5, help="highest ratio for --help (default 1.5)"
    )
    parser.add_argument(
        "--command-limit",
        type=float,
        default=3.0,
        help="highest ratio for the two --check runs (default 3)",
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    with tempfile.TemporaryDirectory(prefix="jp-migrate-startup-") as tmp:
        work = Path(tmp)
        (work / "ws" / ".jp" / "conversations").mkdir(parents=True)
        (work / "tool.py").write_text(PLAIN_TOOL, encoding="utf-8")
        cases = [
            ("--help", [*script(), "--help"], args.limit),
            (
                "conversations --check",
                [*script(), "conversations", "ws", "--check"],
                args.command_limit,
            ),
            ("tools --check", [*script(), "tools", "tool.py", "--check"], args.command_limit),
        ]
        times = measure([BASELINE, *(command for _, command, _ in cases)], args.runs, work)
    base = statistics.median(times[0])
    print(f"{' '.join(BASELINE)}: median {base * 1000:.1f} ms over {args.runs} runs")
    slow = False
    for (name, command, limit), samples in zip(cases, times[1:], strict=True):
        median = statistics.median(samples)
        ratio = median / base
        slow = slow or ratio > limit
        verdict = "ok" if ratio <= limit else "TOO SLOW"
        print(
            f"{' '.join(command)}: median {median * 1000:.1f} ms, "
            f"ratio {ratio:.2f} (limit {limit:.2f}): {verdict}"
        )
    print("all within their limits" if not slow else "TOO SLOW")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
