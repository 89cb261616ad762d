"""Adapter overhead (issue 24): a legacy tool run directly against the same run behind
`jp-migrate adapt` (local), and an MCP server's tools called directly against the same
calls through `jp-migrate adapt --mcp` in front of its `--jp` mode.

Each pair of commands runs alternately (machine noise hits both alike). Local: the
median wall-time difference and the CPU-time difference (user+sys of the children,
less sensitive to a busy machine) per run, limit 30 ms. The commands run with
bytecode cached (in a private PYTHONPYCACHEPREFIX, as a pip-installed package has
its .pyc files) even when the caller sets PYTHONDONTWRITEBYTECODE; `--no-bytecode`
keeps the caller's environment. `--against DIR` times the jp_migrate under DIR (another
version's checkout) in the same rounds; `--breakdown` splits the overhead into the
adapter's interpreter start-up, each step of its imports, and the run. MCP: the ratio of the
medians of one session (start, every call in examples/tools/cases.jsonl's MCP
cases, stop), limit 1.2.

    python benchmarks/bench_adapt.py [-n 30] [--limit-ms 30] [--against DIR] [--breakdown]
                                     [--no-bytecode]
    python benchmarks/bench_adapt.py --mcp [-n 10] [--limit 1.2] [--floor]

--floor also times the calls behind `byte_relay.py`, which copies bytes and
parses nothing: what any process between client and server costs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def run_once(command: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one run (exits on failure: a benchmark of a broken run means nothing)."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=TOOLS, capture_output=True, check=False, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"error: {' '.join(command)} exited {done.returncode}: {done.stderr[-500:]!r}")
    return wall, _children_cpu() - cpu


def _launch(source: Path) -> list[str]:
    """What the console script runs (it imports `re` first), with `source`'s jp_migrate."""
    code = (
        f"import re, sys; sys.path.insert(0, {str(source)!r}); "
        "from jp_migrate.entry import main; sys.exit(main())"
    )
    return [sys.executable, "-c", code]


# Where the overhead goes: each probe is a fresh interpreter doing one step more than
# the one before it, up to everything `adapt` imports before it starts the tool.
PROBES = {
    "interpreter (python -S)": [sys.executable, "-S", "-c", "pass"],
    "site": [sys.executable, "-c", "pass"],
    "re (the console script's first import, and json's)": [sys.executable, "-c", "import re"],
    "json": [sys.executable, "-c", "import re, json"],
    "jp_migrate's modules": [
        sys.executable,
        "-c",
        "import re, json, jp_migrate.entry, jp_migrate.adapt.fast, jp_migrate.adapt.local",
    ],
}


def _ms(samples: list[tuple[float, float]], column: int) -> float:
    return statistics.median(sample[column] for sample in samples) * 1000


def bytecode_env(cache: Path) -> dict[str, str]:
    """The caller's environment, with .pyc files written to and read from `cache`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def local(
    runs: int, limit_ms: float, against: Path | None, breakdown: bool, env: dict[str, str] | None
) -> int:
    arguments = ["adapt", "--name", "service_status", "--", *TOOL]
    commands = {"tool": TOOL, "adapt": [*adapt_command(), *arguments]}
    if against is not None:  # both versions started the same way, in alternation
        commands["adapt"] = [*_launch(REPO), *arguments]
        commands["against"] = [*_launch(against.resolve()), *arguments]
    if breakdown:
        commands.update(PROBES)
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for command in commands.values():  # warm-up (writes the bytecode cache), untimed
        run_once(command, env)
    for _ in range(runs):
        for name, command in commands.items():
            samples[name].append(run_once(command, env))
    tool_wall, tool_cpu = _ms(samples["tool"], 0), _ms(samples["tool"], 1)
    print(f"tool alone: median {tool_wall:.1f} ms wall, {tool_cpu:.1f} ms CPU")
    wall = _ms(samples["adapt"], 0) - tool_wall
    for name in ("adapt", "against"):
        if name in samples:
            label = "behind adapt" if name == "adapt" else f"behind adapt of {against}"
            print(
                f"{label}: median {_ms(samples[name], 0):.1f} ms wall; overhead: "
                f"{_ms(samples[name], 0) - tool_wall:.1f} ms wall, "
                f"{_ms(samples[name], 1) - tool_cpu:.1f} ms CPU per run over {runs} runs"
            )
    if breakdown:
        for column, unit in ((0, "wall"), (1, "CPU")):
            parts, before = [], 0.0
            for name in PROBES:
                parts.append(f"{name} {_ms(samples[name], column) - before:.1f}")
                before = _ms(samples[name], column)
            rest = _ms(samples["adapt"], column) - _ms(samples["tool"], column) - before
            parts.append(f"the run (spawn, wait, read, print) {rest:.1f}")
            print(f"  {unit} ms: " + ", ".join(parts))
    verdict = "ok" if wall <= limit_ms else "TOO SLOW"
    bytecode = "caller's environment" if env is None else "bytecode cached"
    load = f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    print(f"limit {limit_ms:g} ms (wall): {verdict} ({bytecode}; {load})")
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
        "--against", type=Path, help="local: also time the jp_migrate under this directory"
    )
    parser.add_argument("--breakdown", action="store_true", help="local: where the overhead goes")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="local: keep the caller's environment (PYTHONDONTWRITEBYTECODE: compile every run)",
    )
    parser.add_argument(
        "--floor", action="store_true", help="--mcp: also time a relay that only copies bytes"
    )
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.mcp:
        return mcp(args.runs, args.limit, args.floor)
    with tempfile.TemporaryDirectory(prefix="bench-adapt-") as tmp:
        env = None if args.no_bytecode else bytecode_env(Path(tmp))
        return local(args.runs, args.limit_ms, args.against, args.breakdown, env)


if __name__ == "__main__":
    sys.exit(main())
