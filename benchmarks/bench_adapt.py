"""Adapter overhead (issue 24): a legacy tool run directly against the same run behind
`jp-migrate adapt` (local), and an MCP server's tools called directly against the same
calls through `jp-migrate adapt --mcp` in front of its `--jp` mode.

Each pair of commands runs alternately (machine noise hits both alike). Local: the
median wall-time difference and the CPU-time difference (user+sys of the children,
less sensitive to a busy machine) per run, limit 30 ms. MCP: the ratio of the
medians of one session (start, every call in examples/tools/cases.jsonl's MCP
cases, stop), limit 1.2.

    python benchmarks/bench_adapt.py [-n 30] [--limit-ms 30]
    python benchmarks/bench_adapt.py --mcp [-n 10] [--limit 1.2] [--floor]

--floor also times the calls behind `byte_relay.py`, which copies bytes and
parses nothing: what any process between client and server costs.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOOLS = REPO / "examples" / "tools"
SERVER = REPO / "examples" / "mcp_server" / "server.py"
TOOL = [sys.executable, "service_status.py", json.dumps({"arguments": {"service": "web"}})]


def adapt_command() -> list[str]:
    """The console script beside this Python (else on PATH), or `python -m jp_migrate`."""
    beside = Path(sys.executable).with_name("jp-migrate")
    script = str(beside) if beside.is_file() else shutil.which("jp-migrate")
    return [script] if script else [sys.executable, "-m", "jp_migrate"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(command: Sequence[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run (exits on failure: a benchmark of a broken run means nothing)."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=TOOLS, capture_output=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(command)} exited {done.returncode}: {done.stderr[-500:]!r}")
    return wall, _children_cpu() - cpu


def local(runs: int, limit_ms: float) -> int:
    adapted = [*adapt_command(), "adapt", "--name", "service_status", "--", *TOOL]
    run_once(TOOL)
    run_once(adapted)
    direct: list[tuple[float, float]] = []
    behind: list[tuple[float, float]] = []
    for _ in range(runs):
        direct.append(run_once(TOOL))
        behind.append(run_once(adapted))
    wall = (
        statistics.median(b[0] for b in behind) - statistics.median(d[0] for d in direct)
    ) * 1000
    cpu = (statistics.median(b[1] for b in behind) - statistics.median(d[1] for d in direct)) * 1000
    print(f"tool alone: median {statistics.median(d[0] for d in direct) * 1000:.1f} ms wall")
    print(f"behind adapt: median {statistics.median(b[0] for b in behind) * 1000:.1f} ms wall")
    print(f"overhead: {wall:.1f} ms wall, {cpu:.1f} ms CPU per run over {runs} runs")
    verdict = "ok" if wall <= limit_ms else "TOO SLOW"
    print(f"limit {limit_ms:g} ms: {verdict}")
    return 0 if wall <= limit_ms else 1


# The example server's cases (examples/tools/cases.jsonl), as tools/call requests.
MCP_CALLS: list[tuple[str, dict[str, object], dict[str, object]]] = [
    ("greet", {"name": "Ada"}, {}),
    ("greet", {"name": "Zoë 🌱"}, {}),
    ("divide", {"a": 7, "b": 2}, {}),
    ("divide", {"a": 1, "b": 0}, {}),
    ("service_status", {"service": "web"}, {}),
    ("service_status", {"service": "db"}, {}),
    ("read_snippet", {"path": "hello.py"}, {}),
    ("read_snippet", {"path": "config.json"}, {}),
    ("delete_file", {"path": "notes.txt"}, {"confirm": True}),
    ("delete_file", {"path": "notes.txt"}, {"confirm": False}),
]


async def _calls(command: list[str], rounds: int) -> tuple[float, float]:
    """Seconds to start a session (initialize, tools/list), and for `rounds` times every call."""
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:])
    start = time.perf_counter()
    async with Client(stdio_client(params), cache=None) as client:
        await client.session.list_tools()
        started = time.perf_counter()
        for _ in range(rounds):
            for name, arguments, answers in MCP_CALLS:
                meta = (
                    {
                        "computer.jp/tool": {
                            "name": name,
                            "arguments": arguments,
                            "answers": answers,
                            "options": {},
                        }
                    }
                    if answers
                    else None
                )
                await client.session.call_tool(name, arguments, meta=meta)
        return started - start, time.perf_counter() - started


def mcp(runs: int, limit: float, floor: bool = False) -> int:
    import anyio

    direct_cmd = [sys.executable, str(SERVER), "--jp"]
    adapted_cmd = [*adapt_command(), "adapt", "--mcp", "--", *direct_cmd]
    copier_cmd = [sys.executable, str(Path(__file__).with_name("byte_relay.py")), *direct_cmd]
    rounds = 5
    anyio.run(_calls, direct_cmd, 1)
    anyio.run(_calls, adapted_cmd, 1)
    direct: list[tuple[float, float]] = []
    behind: list[tuple[float, float]] = []
    copied: list[tuple[float, float]] = []
    for _ in range(runs):
        direct.append(anyio.run(_calls, direct_cmd, rounds))
        behind.append(anyio.run(_calls, adapted_cmd, rounds))
        if floor:
            copied.append(anyio.run(_calls, copier_cmd, rounds))
    calls = rounds * len(MCP_CALLS)
    if floor:
        copier = statistics.median(side[1] for side in copied) / calls
        direct_call = statistics.median(side[1] for side in direct) / calls
        print(
            f"behind a byte-copying relay (the floor of any relay): {copier * 1000:.2f} ms a call, "
            f"{copier / direct_call:.2f}x"
        )
    per_call = [statistics.median(side[1] for side in runs_) / calls for runs_ in (direct, behind)]
    starts = [statistics.median(side[0] for side in runs_) for runs_ in (direct, behind)]
    ratio = per_call[1] / per_call[0]
    print(
        f"start (initialize + tools/list): {starts[0] * 1000:.0f} ms direct, "
        f"{starts[1] * 1000:.0f} ms behind adapt --mcp"
    )
    print(
        f"tools/call: {per_call[0] * 1000:.2f} ms direct, {per_call[1] * 1000:.2f} ms behind "
        f"adapt --mcp (median of {runs} sessions of {calls} calls)"
    )
    verdict = "ok" if ratio <= limit else "TOO SLOW"
    print(f"ratio {ratio:.2f} (limit {limit:.2f}): {verdict}")
    return 0 if ratio <= limit else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=30, help="runs of each (default 30)")
    parser.add_argument("--mcp", action="store_true", help="measure adapt --mcp instead")
    parser.add_argument("--limit-ms", type=float, default=30.0, help="local: highest overhead")
    parser.add_argument("--limit", type=float, default=1.2, help="--mcp: highest ratio")
    parser.add_argument(
        "--floor", action="store_true", help="--mcp: also time a relay that only copies bytes"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return mcp(args.runs, args.limit, args.floor) if args.mcp else local(args.runs, args.limit_ms)


if __name__ == "__main__":
    sys.exit(main())
