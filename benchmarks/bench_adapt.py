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
    python benchmarks/bench_adapt.py --mcp [-n 10] [--limit 1.2] [--floor] [--against DIR]
    python benchmarks/bench_adapt.py --large [-n 5] [--linear 5] [--default-malloc]

--floor also times the calls behind `byte_relay.py`, which copies bytes and
parses nothing: what any process between client and server costs.

--large (issue 31) times one message of 20 MB and one of 80 MB through the relay, each
way (a tools/call whose request is that large; one whose Outcome result is, converted
by the adapter), alternately in one session of `adapt --mcp --max-message 128MiB` in
front of `large_server.py` (plain Python, no SDK), and the same calls made to the server
directly: the medians of the wall time, the relay's own share (behind less direct),
and the adapter process's CPU time (from /proc: on a loaded machine the wall time swings
with others' work), whose 80 MB over 20 MB ratio must be at most --linear (5: a linear
relay gives 4). Both peers run with glibc's mmap threshold fixed at 1 MiB, so that both
sizes get fresh memory (--default-malloc keeps glibc's own, under which a repeated 20 MB
message reuses memory already touched). Also the adapter's peak memory (VmHWM).
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


def mcp(runs: int, limit: float, floor: bool = False, against: Path | None = None) -> int:
    import anyio

    direct_cmd = [sys.executable, str(SERVER), "--jp"]
    adapt_args = ["adapt", "--mcp", "--", *direct_cmd]
    commands = {"direct": direct_cmd, "behind": [*adapt_command(), *adapt_args]}
    if against is not None:  # both versions started the same way, in alternation
        commands["behind"] = [*_launch(REPO), *adapt_args]
        commands["against"] = [*_launch(against.resolve()), *adapt_args]
    if floor:
        copier = [sys.executable, str(Path(__file__).with_name("byte_relay.py")), *direct_cmd]
        commands["copier"] = copier
    rounds = 5
    for command in commands.values():  # warm-up, untimed
        anyio.run(_calls, command, 1)
    sessions: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            sessions[name].append(anyio.run(_calls, command, rounds))
    calls = rounds * len(MCP_CALLS)
    per_call = {
        name: statistics.median(s[1] for s in runs_) / calls for name, runs_ in sessions.items()
    }
    starts = {name: statistics.median(s[0] for s in runs_) for name, runs_ in sessions.items()}
    if floor:
        print(
            f"behind a byte-copying relay (the floor of any relay): "
            f"{per_call['copier'] * 1000:.2f} ms a call, "
            f"{per_call['copier'] / per_call['direct']:.2f}x"
        )
    if against is not None:
        print(
            f"behind adapt --mcp of {against}: {per_call['against'] * 1000:.2f} ms a call, "
            f"{per_call['against'] / per_call['direct']:.2f}x"
        )
    ratio = per_call["behind"] / per_call["direct"]
    print(
        f"start (initialize + tools/list): {starts['direct'] * 1000:.0f} ms direct, "
        f"{starts['behind'] * 1000:.0f} ms behind adapt --mcp"
    )
    print(
        f"tools/call: {per_call['direct'] * 1000:.2f} ms direct, "
        f"{per_call['behind'] * 1000:.2f} ms behind adapt --mcp "
        f"(median of {runs} sessions of {calls} calls)"
    )
    verdict = "ok" if ratio <= limit else "TOO SLOW"
    load = f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    print(f"ratio {ratio:.2f} (limit {limit:.2f}): {verdict} ({load})")
    return 0 if ratio <= limit else 1


LARGE = (20_000_000, 80_000_000)  # bytes of text in the message


class _Line:
    """A JSON-RPC peer on the other end of two pipes: `adapt --mcp` or the server itself."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
        )
        self.ids = 0
        params = {"protocolVersion": "2025-11-25", "capabilities": {},
                  "clientInfo": {"name": "bench", "version": "1"}}  # fmt: skip
        self.ask("initialize", params)

    def ask(self, method: str, params: dict[str, object]) -> bytes:
        """One request, its answer's line (read whole, not parsed: the client's own cost)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.ids += 1
        message = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line.startswith(b'{"jsonrpc"') or b'"error"' in line[:200]:
            sys.exit(f"error: {line[:300]!r}")
        return line

    def cpu(self) -> float:
        """CPU seconds the peer process has used, all its threads (the first field of each
        one's /proc schedstat, in ns: the clock ticks of /proc/PID/stat are 10 ms); 0
        without /proc."""
        total = 0
        tasks = Path(f"/proc/{self.proc.pid}/task")
        for task in tasks.iterdir() if tasks.exists() else ():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (OSError, IndexError, ValueError):  # a thread that ended meanwhile
                continue
        return total / 1e9

    def call(self, kind: str, size: int) -> tuple[float, float]:
        """Wall seconds for a tools/call whose request (`size`) or result (`big`) is `size`
        bytes, and the CPU seconds the peer process spent on it."""
        arguments = {"text": "y" * size} if kind == "size" else {"size": size}
        cpu = self.cpu()
        start = time.perf_counter()
        line = self.ask("tools/call", {"name": kind, "arguments": arguments})
        took = time.perf_counter() - start
        expected = str(size) if kind == "size" else "x" * 16
        if expected.encode() not in line[:200]:
            sys.exit(f"error: unexpected answer {line[:200]!r}")
        return took, self.cpu() - cpu

    def close(self) -> int:
        """Its peak memory (VmHWM, bytes; 0 where /proc has none), then its end."""
        peak = 0
        status = Path(f"/proc/{self.proc.pid}/status")
        if status.exists():
            for row in status.read_text().splitlines():
                if row.startswith("VmHWM:"):
                    peak = int(row.split()[1]) * 1024
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(60)
        return peak


def large(runs: int, linear: float, default_malloc: bool) -> int:
    server = [sys.executable, str(Path(__file__).with_name("large_server.py"))]
    # glibc serves a block below its mmap threshold (which grows to 32 MiB once such a block
    # is freed) from memory already touched, and one above it from fresh pages, faulted in
    # and zeroed: a repeated 20 MB message is cheaper per byte than an 80 MB one for that
    # alone. A fixed threshold gives both sizes fresh pages, so the ratio is the relay's.
    env = None if default_malloc else {**os.environ, "MALLOC_MMAP_THRESHOLD_": str(1 << 20)}
    adapt = [*adapt_command(), "adapt", "--mcp", "--max-message", "128MiB", "--", *server]
    behind = _Line(adapt, env)
    direct = _Line(server, env)
    times: dict[tuple[str, str, int], list[tuple[float, float]]] = {}
    for peer in (behind, direct):  # warm-up: each way once, untimed
        peer.call("big", LARGE[0])
        peer.call("size", LARGE[0])
    for _ in range(runs):
        for size in LARGE:
            for kind in ("size", "big"):
                for name, peer in (("behind", behind), ("direct", direct)):
                    times.setdefault((name, kind, size), []).append(peer.call(kind, size))
    peak = behind.close()
    direct.close()
    worst = 0.0
    for kind, way in (("size", "client -> server"), ("big", "server -> client (converted)")):
        wall = {k: statistics.median(t[0] for t in v) for k, v in times.items() if k[1] == kind}
        own = {size: wall["behind", kind, size] - wall["direct", kind, size] for size in LARGE}
        cpu = {size: statistics.median(t[1] for t in times["behind", kind, size]) for size in LARGE}
        ratio = (
            cpu[LARGE[1]] / cpu[LARGE[0]]
            if cpu[LARGE[0]]
            else wall["behind", kind, LARGE[1]] / wall["behind", kind, LARGE[0]]
        )
        worst = max(worst, ratio)
        print(
            f"{way}: 20 MB {wall['behind', kind, LARGE[0]]:.3f} s behind "
            f"({wall['direct', kind, LARGE[0]]:.3f} s direct, relay {own[LARGE[0]]:.3f} s), "
            f"80 MB {wall['behind', kind, LARGE[1]]:.3f} s "
            f"({wall['direct', kind, LARGE[1]]:.3f} s direct, relay {own[LARGE[1]]:.3f} s): "
            f"80/20 {wall['behind', kind, LARGE[1]] / wall['behind', kind, LARGE[0]]:.2f}x wall; "
            f"the adapter's CPU {cpu[LARGE[0]]:.3f} s and {cpu[LARGE[1]]:.3f} s, "
            f"80/20 {ratio:.2f}x"
        )
    if peak:
        print(
            f"adapter peak memory {peak / 2**20:.0f} MiB (80 MB messages: {peak / LARGE[1]:.1f}x)"
        )
    verdict = "ok" if worst <= linear else "NOT LINEAR"
    load = f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    print(
        f"80 MB / 20 MB (the adapter's CPU time) at most {linear:g}x: {verdict} "
        f"(median of {runs} rounds; {'glibc default' if default_malloc else 'mmap threshold 1 MiB'}"
        f"; {load})"
    )
    return 0 if worst <= linear else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=30, help="runs of each (default 30)")
    parser.add_argument("--mcp", action="store_true", help="measure adapt --mcp instead")
    parser.add_argument(
        "--large", action="store_true", help="time 20 MB and 80 MB messages through adapt --mcp"
    )
    parser.add_argument(
        "--linear", type=float, default=5.0, help="--large: highest 80 MB / 20 MB time ratio"
    )
    parser.add_argument(
        "--default-malloc",
        action="store_true",
        help="--large: keep glibc's own mmap threshold (a repeated 20 MB message reuses memory)",
    )
    parser.add_argument("--limit-ms", type=float, default=30.0, help="local: highest overhead")
    parser.add_argument("--limit", type=float, default=1.2, help="--mcp: highest ratio")
    parser.add_argument(
        "--against", type=Path, help="local, --mcp: also time the jp_migrate under this directory"
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
    if args.large:
        return large(args.runs, args.linear, args.default_malloc)
    if args.mcp:
        return mcp(args.runs, args.limit, args.floor, args.against)
    with tempfile.TemporaryDirectory(prefix="bench-adapt-") as tmp:
        env = None if args.no_bytecode else bytecode_env(Path(tmp))
        return local(args.runs, args.limit_ms, args.against, args.breakdown, env)


if __name__ == "__main__":
    sys.exit(main())
