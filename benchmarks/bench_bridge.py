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
3. MCP call overhead: one `tools/call` through the bridge (`run_target` with a
   kept session: the call, the result read as the RFD 058 host reads it) against
   a minimal official-SDK client making the same call, each on its own running
   copy of the example MCP server, alternately M times in one run. Target: the
   bridge's median per call at most 1.2x the SDK client's.

    python benchmarks/bench_bridge.py [-n 20] [--cases 24] [--calls 200] [--smoke] [--no-bytecode]

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


SERVER = Path(__file__).resolve().parents[1] / "examples" / "mcp_server" / "server.py"


def mcp_overhead(calls: int) -> dict[str, float]:
    """Median seconds per `tools/call` through the bridge and through a bare SDK client."""
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from jp_migrate.bridge.config import McpServer
    from jp_migrate.bridge.mcp_client import SessionPool
    from jp_migrate.bridge.target import Inputs, Target, run_target

    server = McpServer("example", sys.executable, (str(SERVER),))
    root = SERVER.parent
    target = Target(name="greet", root=root, server=server, remote_name="greet")
    inputs = Inputs({"name": "Ada"})
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)], cwd=str(root))
    timings: dict[str, list[float]] = {"bridge": [], "sdk": []}

    async def rounds() -> None:
        async with SessionPool() as pool, Client(stdio_client(params), cache=None) as client:
            for round_ in range(calls + 1):  # the first round warms both up, untimed
                start = time.perf_counter()
                done = await run_target(target, inputs, mode="blocks", sessions=pool)
                bridge = time.perf_counter() - start
                start = time.perf_counter()
                result = await client.call_tool("greet", {"name": "Ada"})
                sdk = time.perf_counter() - start
                text = getattr(result.content[0], "text", None)
                if done.outcome.text != "Hello, Ada!" or text != "Hello, Ada!":
                    sys.exit(f"error: unexpected results {done.outcome.text!r}, {result!r}")
                if round_:
                    timings["bridge"].append(bridge)
                    timings["sdk"].append(sdk)

    anyio.run(rounds)
    figures = {k: statistics.median(v) for k, v in timings.items()}
    figures["ratio"] = figures["bridge"] / figures["sdk"]
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=20, help="overhead runs of each command")
    parser.add_argument("--cases", type=int, default=24, help="verify cases for the throughput run")
    parser.add_argument("--calls", type=int, default=200, help="MCP calls of each client")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: check the script runs")
    parser.add_argument("--no-fail", action="store_true", help="always exit 0 (report only)")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="keep the caller's environment (PYTHONDONTWRITEBYTECODE: compile on every run)",
    )
    args = parser.parse_args(argv)
    runs, cases = (2, 4) if args.smoke else (max(1, args.runs), max(2, args.cases))
    calls = 3 if args.smoke else max(1, args.calls)
    with tempfile.TemporaryDirectory(prefix="bench-bridge-") as tmp:
        tool = Path(tmp) / "tool.py"
        tool.write_text(TOOL, encoding="utf-8")
        env = None if args.no_bytecode else bytecode_env(Path(tmp) / "pycache")
        o = overhead(tool, runs, env)
        t = throughput(tool, cases)
    m = mcp_overhead(calls)
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
    print(
        f"MCP tools/call, {calls} interleaved: bridge {m['bridge'] * 1000:.2f} ms, "
        f"SDK client {m['sdk'] * 1000:.2f} ms per call (medians), ratio {m['ratio']:.2f} "
        "(target ≤ 1.20)"
    )
    missed = ms["over_startup"] > 50 or t["ratio"] > 0.6 or m["ratio"] > 1.2
    return 0 if args.no_fail or args.smoke or not missed else 1


if __name__ == "__main__":
    sys.exit(main())
