"""`check`'s verify step on the example MCP server: one server per worker and side, against
one per case and side (issue 25).

Both run the ten MCP cases of examples/tools/cases.jsonl, each tool against its
transitional twin (`mcp_X_jp`), in a scratch copy of the example workspace, with
`jobs` at once:

- baseline: `verify_case` for each case with no session pool, as `check` did
  before it used `verify_trials` (every case starts its two servers);
- candidate: `verify_trials`, which `check` and `jp-migrate verify` share (each
  worker keeps one server per side for its cases).

The two alternate N times (machine noise hits both alike); the script prints
each median, the ratio, and exits 1 when the ratio is above the target.

    python benchmarks/bench_check.py [-n 3] [--jobs 2] [--limit 0.9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio

from jp_migrate.bridge.verify import (
    Target,
    Trial,
    load_cases,
    scratch_workspace,
    verify_case,
    verify_trials,
)
from jp_migrate.contract.report import VerifyCase

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def trials(workspace: Path, copy: Path) -> list[Trial]:
    """Every case of an MCP tool, its twin the control, both run in `copy`."""
    out: list[Trial] = []
    for index, case in enumerate(load_cases(workspace / "cases.jsonl")):
        if case.tool is None or not case.tool.startswith("mcp_"):
            continue
        candidate = Target.from_workspace(workspace, case.tool)
        control = Target.from_workspace(workspace, f"{case.tool}_jp").named(candidate.call_name)
        out.append(Trial(control.relocated(copy), candidate.relocated(copy), case, index))
    return out


def per_case(runs: Sequence[Trial], jobs: int) -> list[VerifyCase]:
    limiter = anyio.CapacityLimiter(jobs)
    results: dict[int, VerifyCase] = {}

    async def one(number: int, t: Trial) -> None:
        async with limiter:
            results[number] = await verify_case(t.before, t.after, t.case, t.index)

    async def every() -> None:
        async with anyio.create_task_group() as group:
            for number, trial in enumerate(runs):
                group.start_soon(one, number, trial)

    anyio.run(every)
    return [results[number] for number in range(len(runs))]


def timed(run: Callable[[], list[VerifyCase]]) -> float:
    start = time.perf_counter()
    results = run()
    elapsed = time.perf_counter() - start
    bad = [r for r in results if r.verdict not in ("match", "expected")]
    if bad:
        sys.exit(f"a case did not pass: {bad[0].message}")
    return elapsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--limit", type=float, default=0.9, help="target ratio (default 0.9)")
    args = parser.parse_args(argv)
    # The example config runs `python3 ../mcp_server/server.py`: this interpreter (with mcp).
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    workspace = EXAMPLES / "tools"
    with scratch_workspace(EXAMPLES) as copy:
        runs = trials(workspace, copy / "tools")
        base: list[float] = []
        new: list[float] = []
        for _ in range(args.n):
            base.append(timed(lambda: per_case(runs, args.jobs)))
            new.append(timed(lambda: verify_trials(runs, jobs=args.jobs)))
    b, c = statistics.median(base), statistics.median(new)
    print(f"{len(runs)} MCP cases, jobs={args.jobs}, {args.n} rounds")
    print(
        f"  one server per case and side (baseline): median {b:.2f} s {[round(x, 2) for x in base]}"
    )
    print(
        f"  one per worker and side (verify_trials):  median {c:.2f} s {[round(x, 2) for x in new]}"
    )
    print(f"  ratio {c / b:.2f}x (target <= {args.limit}x)")
    return 0 if c / b <= args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
