"""Bridge benchmarks (issue 5): per-call overhead of `bridge run`, and `verify` throughput with jobs.

1. Overhead: `jp-migrate bridge run --command TOOL --json` against running TOOL
   directly, alternately N times; the overhead (median difference) is compared
   with interpreter start-up (`python -c pass`). Target: overhead at most
   start-up + 50 ms. The three commands run with bytecode cached (in a private
   PYTHONPYCACHEPREFIX, as a pip-installed package has its .pyc files), even
   when the caller sets PYTHONDONTWRITEBYTECODE; `--no-bytecode` keeps the
   caller's environment (then every run compiles jp_migrate from source).
2. Throughput: `verify_cases` over C cases with jobs=2 against jobs=1 (the runs
   are processes, so threads overlap them). Target: jobs=2 takes at most 0.6x.

    python benchmarks/bench_bridge.py [-n 20] [--cases 24] [--smoke] [--no-bytecode]

Prints the figures and exits 1 when a target is missed (0 with --no-fail).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

TOOL = """import json, sys
tool = json.loads(sys.argv[1])
args = tool["arguments"]
if "--migrated" in sys.argv[2:]:
    print(json.dumps({"content": [{"type": "text", "text": "hello " + str(args.get("n"))}]}))
else:
    print(json.dumps({"type": "success", "content": "hello " + str(args.get("n"))}))
"""


def _run(command: Sequence[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=env
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(
            f"error: {' '.join(command)} exited {done.returncode}: {done.stderr.decode()[-500:]}"
        )
    return elapsed


def bytecode_env(cache: Path) -> dict[str, str]:
    """The caller's environment, with .pyc files written to and read from `cache`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def overhead(tool: Path, runs: int, env: dict[str, str] | None = None) -> dict[str, float]:
    tool_json = json.dumps({"name": "bench", "arguments": {"n": 1}, "answers": {}, "options": {}})
    direct = [sys.executable, str(tool), tool_json]
    bridge = [
        sys.executable, "-m", "jp_migrate", "bridge", "run", "--json", "--name", "bench",
        "--command", f"{sys.executable} {tool} '{{{{tool}}}}'", "--args", '{"n": 1}',
    ]  # fmt: skip
    startup = [sys.executable, "-c", "pass"]
    for command in (direct, bridge, startup):  # warm-up (writes the bytecode cache), untimed
        _run(command, env)
    timings: dict[str, list[float]] = {"direct": [], "bridge": [], "startup": []}
    for _ in range(runs):
        timings["direct"].append(_run(direct, env))
        timings["bridge"].append(_run(bridge, env))
        timings["startup"].append(_run(startup, env))
    medians = {k: statistics.median(v) for k, v in timings.items()}
    medians["overhead"] = medians["bridge"] - medians["direct"]
    medians["over_startup"] = medians["overhead"] - medians["startup"]
    return medians


def throughput(tool: Path, count: int) -> dict[str, float]:
    from jp_migrate.bridge.target import Target
    from jp_migrate.bridge.verify import Case, verify_cases

    command = f"{sys.executable} {tool.name} '{{{{tool}}}}'"
    before = Target.from_template(command, "bench", tool.parent)
    # The candidate is the same tool told to print the RFD 058 envelope instead of an Outcome.
    after = Target.from_template(f"{command} --migrated", "bench", tool.parent)
    cases = [Case({"n": i}) for i in range(count)]
    figures: dict[str, float] = {}
    for jobs in (1, 2):
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        results = verify_cases(before, after, cases, jobs=jobs, timeout=60)
        figures[f"jobs{jobs}"] = time.perf_counter() - start
        after_children = resource.getrusage(resource.RUSAGE_CHILDREN)
        # CPU the tool processes used: the work is the same for both; only the overlap differs.
        figures[f"cpu{jobs}"] = (after_children.ru_utime - children.ru_utime) + (
            after_children.ru_stime - children.ru_stime
        )
        bad = [r for r in results if r.verdict not in ("match", "expected")]
        if bad:
            sys.exit(f"error: unexpected verdict {bad[0].verdict}: {bad[0].message}")
    figures["ratio"] = figures["jobs2"] / figures["jobs1"]
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=20, help="overhead runs of each command")
    parser.add_argument("--cases", type=int, default=24, help="verify cases for the throughput run")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: check the script runs")
    parser.add_argument("--no-fail", action="store_true", help="always exit 0 (report only)")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="keep the caller's environment (PYTHONDONTWRITEBYTECODE: compile on every run)",
    )
    args = parser.parse_args(argv)
    runs, cases = (2, 4) if args.smoke else (max(1, args.runs), max(2, args.cases))
    with tempfile.TemporaryDirectory(prefix="bench-bridge-") as tmp:
        tool = Path(tmp) / "tool.py"
        tool.write_text(TOOL, encoding="utf-8")
        env = None if args.no_bytecode else bytecode_env(Path(tmp) / "pycache")
        o = overhead(tool, runs, env)
        t = throughput(tool, cases)
    ms = {k: v * 1000 for k, v in o.items()}
    print(
        f"bridge run: {ms['bridge']:.0f} ms, direct: {ms['direct']:.0f} ms, "
        f"overhead: {ms['overhead']:.0f} ms, interpreter start-up: {ms['startup']:.0f} ms, "
        f"overhead above start-up: {ms['over_startup']:.0f} ms (target ≤ 50 ms; "
        f"{'caller environment' if args.no_bytecode else 'bytecode cached'})"
    )
    print(
        f"verify {cases} cases: jobs=1 {t['jobs1']:.2f} s, jobs=2 {t['jobs2']:.2f} s, "
        f"ratio {t['ratio']:.2f} (target ≤ 0.60); tool processes' CPU {t['cpu1']:.2f} s / "
        f"{t['cpu2']:.2f} s; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    missed = ms["over_startup"] > 50 or t["ratio"] > 0.6
    return 0 if args.no_fail or args.smoke or not missed else 1


if __name__ == "__main__":
    sys.exit(main())
