"""Benchmark: `jp-migrate conversations` against a stdlib load-and-dump baseline.

Generates a realistic store (default 1,000 conversations, about 100 MB, the
event mix of the real corpus: a large config_delta, chat requests and
responses with reasoning, base64 tool calls and responses, inquiries; most
conversations in standard base64, some URL-safe, some plain), then times in
this one process:

  baseline   the issue's baseline: per events.json, stdlib json.load it, then json.dump it
             (indent=2, ensure_ascii=False) back into the file: a naive rewrite, no
             temporary, no fsync, no backup
  no-write   the same load and pretty dump to a string only (json.dumps, nothing
             written): a stricter reference, printed beside the baseline
  no-backup  migration with --no-backup
  backup     migration with backups (hard links)
  jobs2      migration with --jobs 2 and backups
  check      --check on the legacy store
  rollback   `rollback` of the store `backup` migrated (every file restored from its backup),
             and rollback-jobs2 the same with --jobs 2 (of the store `jobs2` migrated)
  floor      only the system calls a safe rewrite cannot avoid: per file, read it,
             create a temporary beside it, write the same bytes, fsync (concurrently,
             in batches), keep the original by a hard link (as a backup does) and
             rename the temporary over it; no parsing, no lock, no manifest: a ratio
             to read the others against

and the peak memory (max RSS) of a migration run in a child process, for this
store and for one whose largest events.json is ten times larger.

Each migration runs on its own fresh copy of the legacy store, and the copies
are removed only at the end (about 1.6 GB in the temporary directory with
`--repeat 3`): removing 100 MB frees its blocks, which on a disk mounted with
`discard` slows whatever runs next, and a user's store is not migrated right
after such a removal.

For the same reason no phase is timed right after the freeing of many inodes.
On ext4 without a journal, creating a file skips, one inode-table lookup each,
every inode of its block group freed in the last minute (six while the table is
not yet written back): a migration creating 1,000 files right after another
phase freed 1,000 runs 10-20% slower for it (seen in `perf`: `recently_deleted`).
The baseline creates no file and never pays. So the phases that free inodes
(`--no-backup` drops the originals, a rollback drops the migrated files) run
last in a round, the two rollbacks in turn first, and the next round starts
once they have aged (a sync, then `--settle` seconds). A store removed
just before the benchmark (the last run's copies) slows its first round only.

With `--against DIR` (a directory holding another version's `jp_migrate`
package), each round also times both versions' migrations and rollbacks (a
store each version migrated first, untimed), one after the other, each in a
child process of its own (timed inside it, after its imports): an interleaved
A/B comparison on the same machine and store.

    python benchmarks/bench_store.py                 # the full 100 MB store
    python benchmarks/bench_store.py --size 0.05     # 5% of it (a quick smoke run)
    python benchmarks/bench_store.py --against /tmp/old   # this code against /tmp/old/jp_migrate
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGETS = {"no-backup": 0.5, "backup": 0.6, "jobs2": 0.35, "check": 0.25}
ROLLBACKS = {1: "rollback", 2: "rollback-jobs2"}  # --jobs → phase

# The real corpus is mostly ASCII (base64 payloads, English text), with a rare non-ASCII word.
_WORDS = (  # noqa: SIM905 - a sentence reads better than a list literal
    "the conversation store migrate response block tool file workspace root event legacy "
    "content render text encoding base64 payload rollback backup manifest lock archive rule "
    "resource uri fn let mut impl struct enum match self return Ok Err Result Option Some None "
    "async await crate pub use mod cargo test check build error warning a an of to in is it for"
).split()
_RARE = ["—", "café", "naïve", "🎉", "✓", "→", "über"]


def _text(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        line = " ".join(rng.choices(_WORDS, k=rng.randint(4, 14)))
        if rng.random() < 0.05:
            line += " " + rng.choice(_RARE)
        words.append(("    " * rng.randint(0, 2)) + line)
        length += len(line) + 1
    return "\n".join(words)[:size]


def _encode(text: str, encoding: str) -> str:
    if encoding == "plain":
        return text
    raw = text.encode("utf-8")
    if encoding == "urlsafe":
        return base64.urlsafe_b64encode(raw).decode("ascii")
    return base64.b64encode(raw).decode("ascii")


def _config(rng: random.Random, size: int) -> dict[str, Any]:
    """Like the corpus's config_delta: prompt sections, and many small tool tables."""
    sections = [
        {"content": _text(rng, rng.randint(200, 1_500)), "tag": f"section_{i}", "position": i}
        for i in range(max(1, size // 3_000))
    ]
    tools = {
        f"tool_{i}": {
            "enable": bool(i % 3),
            "run": rng.choice(["ask", "unattended", "edit"]),
            "style": {"inline_results": {"truncate": {"lines": 10}}, "parameters": "json"},
            "parameters": {"path": {"type": "string", "required": True, "summary": _text(rng, 60)}},
        }
        for i in range(max(4, size // 1_500))
    }
    return {
        "inherit": False,
        "config_load_paths": [".jp/config", ".jp/config/personas"],
        "assistant": {
            "name": "Software Developer",
            "system_prompt": _text(rng, 400),
            "system_prompt_sections": {"value": sections},
        },
        "conversation": {"tools": tools},
        "providers": {"llm": {"anthropic": {"temperature": 0.7, "max_tokens": 8192}}},
    }


def conversation_events(rng: random.Random, target: int, encoding: str) -> list[dict[str, Any]]:
    """One conversation's events, about `target` bytes of JSON."""
    stamp = 0

    def ts() -> str:
        nonlocal stamp
        stamp += rng.randint(1, 900)
        return f"2026-01-01 {stamp // 36000 % 24:02d}:{stamp // 600 % 60:02d}:{stamp // 10 % 60:02d}.{stamp % 10}{rng.randint(0, 99999):05d}"

    events: list[dict[str, Any]] = [
        {"type": "config_delta", "timestamp": ts(), "delta": _config(rng, min(60_000, target // 4))}
    ]
    size = target // 4
    call = 0
    while size < target:
        events.append({"timestamp": ts(), "type": "turn_start"})
        events.append(
            {
                "timestamp": ts(),
                "type": "chat_request",
                "content": _text(rng, rng.randint(100, 2_000)),
            }
        )
        for _ in range(rng.randint(1, 6)):
            reasoning = _text(rng, rng.randint(200, 8_000))
            events.append(
                {
                    "timestamp": ts(),
                    "type": "chat_response",
                    "reasoning": reasoning,
                    "metadata": {"signature": _encode(_text(rng, 64), "base64")},
                }
            )
            call += 1
            call_id = f"toolu_{call:04d}"
            name = rng.choice(["fs_read_file", "fs_grep_files", "cargo_check", "fs_modify_file"])
            arguments = {
                "path": _encode(
                    f"src/module_{call}.rs", encoding if encoding != "urlsafe" else "base64"
                )
            }
            events.append(
                {
                    "timestamp": ts(),
                    "type": "tool_call_request",
                    "id": call_id,
                    "name": name,
                    "arguments": arguments,
                }
            )
            if name == "fs_modify_file" and rng.random() < 0.5:
                question = {
                    "text": "Apply the patch?\n" + _text(rng, 500),
                    "answer_type": "boolean",
                    "default": True,
                }
                events.append(
                    {
                        "timestamp": ts(),
                        "type": "inquiry_request",
                        "id": f"{call_id}.apply",
                        "source": {"source": "tool", "name": name},
                        "question": question,
                    }
                )
                events.append(
                    {
                        "timestamp": ts(),
                        "type": "inquiry_response",
                        "id": f"{call_id}.apply",
                        "answer": True,
                    }
                )
            body = _text(rng, rng.randint(100, 12_000))
            content = f"```rust\n{body}\n```\n" if name == "fs_read_file" else body
            events.append(
                {
                    "timestamp": ts(),
                    "type": "tool_call_response",
                    "id": call_id,
                    "content": _encode(content, encoding),
                    "is_error": rng.random() < 0.05,
                }
            )
            size += len(reasoning) + len(body) * 4 // 3 + 400
        events.append(
            {
                "timestamp": ts(),
                "type": "chat_response",
                "message": _text(rng, rng.randint(100, 3_000)),
            }
        )
        size += 3_000
    return events


def generate_store(
    root: Path,
    *,
    conversations: int = 1_000,
    total_bytes: int = 100_000_000,
    seed: int = 58,
    largest: int | None = None,
    archived: int = 20,
) -> Path:
    """A storage root with `conversations` conversations of about `total_bytes` in all.

    `largest`, when given, makes the first conversation about that many bytes.
    """
    rng = random.Random(seed)
    mean = total_bytes / max(1, conversations)
    base = root / "conversations"
    (base / ".archive").mkdir(parents=True, exist_ok=True)
    for index in range(conversations):
        size = int(min(mean * 12, rng.lognormvariate(0, 0.8) * mean * 0.6))
        if largest is not None and index == 0:
            size = largest
        encoding = rng.choices(["base64", "urlsafe", "plain"], weights=[80, 10, 10])[0]
        name = f"{17600000000 + index * 137}-generated-conversation-{index}"
        directory = base / (".archive/" + name if index < archived else name)
        directory.mkdir(parents=True)
        (directory / "metadata.json").write_text(
            json.dumps(
                {"title": f"Generated {index}", "last_activated_at": "2026-01-01 00:00:00.0"},
                indent=2,
            )
            + "\n"
        )
        events = conversation_events(rng, max(2_000, size), encoding)
        (directory / "events.json").write_text(
            json.dumps(events, indent=2, ensure_ascii=False) + "\n", "utf-8"
        )
    return root


def events_files(root: Path) -> list[Path]:
    return sorted(root.glob("conversations/**/events.json"))


def baseline(root: Path) -> None:
    """Load and pretty-dump every events.json back into itself with the standard library."""
    for path in events_files(root):
        with path.open(encoding="utf-8") as handle:
            value = json.load(handle)
        with path.open("w", encoding="utf-8") as handle:
            json.dump(value, handle, indent=2, ensure_ascii=False)


def no_write(root: Path) -> None:
    """The baseline's load and pretty dump, to a string only."""
    for path in events_files(root):
        with path.open(encoding="utf-8") as handle:
            value = json.load(handle)
        json.dumps(value, indent=2, ensure_ascii=False)


CPU: dict[
    int, float
] = {}  # id of the last timed call → its CPU seconds (this process and children)


FLOOR_BATCH = 32  # as jp_migrate.store.migrate.BATCH_FILES / COMMIT_THREADS
FLOOR_THREADS = 8


def syscall_floor(root: Path) -> None:
    """Read, create temp, write, fsync (batched, concurrent), link, rename: nothing else."""
    from concurrent.futures import ThreadPoolExecutor

    def flush(batch: list[tuple[str, str, int]], pool: ThreadPoolExecutor) -> None:
        synced = [pool.submit(os.fsync, fd) for _, _, fd in batch]
        for (target, tmp, fd), done in zip(batch, synced, strict=True):
            done.result()
            os.close(fd)
            os.link(target, f"{target}.kept")  # the original stays, as a backup: no inode freed
            os.replace(tmp, target)

    with ThreadPoolExecutor(FLOOR_THREADS) as pool:
        batch: list[tuple[str, str, int]] = []
        for path in events_files(root):
            target = str(path)
            with open(target, "rb") as handle:
                data = handle.read()
            tmp = f"{target}.floor"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.write(fd, data)
            batch.append((target, tmp, fd))
            if len(batch) >= FLOOR_BATCH:
                flush(batch, pool)
                batch = []
        flush(batch, pool)


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed(fn: Callable[[], Any]) -> float:
    """Wall seconds of fn(); its CPU seconds go to CPU[0] (a steadier figure on a busy machine)."""
    started, cpu = time.perf_counter(), _cpu()
    fn()
    CPU[0] = _cpu() - cpu
    return time.perf_counter() - started


def _migrate(root: Path, **options: Any) -> None:
    from jp_migrate.store.api import StoreOptions, run_stores

    run = run_stores([root], StoreOptions(**options))
    bad = [f for f in run.files if f.status == "error"]
    if bad:
        raise SystemExit(f"benchmark store has errors: {bad[0].path}: {bad[0].message}")


def _rollback(root: Path, jobs: int = 1) -> None:
    from jp_migrate.store.rollback import RollbackOptions, rollback_stores

    run = rollback_stores([root], RollbackOptions(jobs=jobs))
    bad = [f for f in run.files if f.status != "migrated"]
    if bad or not run.runs:
        raise SystemExit(f"benchmark rollback: {bad[0].path}: {bad[0].message}" if bad else "none")


def _fresh(source: Path, scratch: Path, name: str) -> Path:
    """A copy of the legacy store, flushed to disk: a store at rest, as a user's is.

    Without the sync, the first fsync of the timed run would pay for writing back
    the whole copy (ext4 orders data before the metadata it commits).
    """
    target = scratch / name
    shutil.copytree(source, target)
    os.sync()
    return target


CHILD = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from jp_migrate.store.api import StoreOptions, run_stores
from jp_migrate.store.rollback import RollbackOptions, rollback_stores
options = eval(sys.argv[3])
root = Path(sys.argv[2])
if options.pop("rollback", False):  # the store migrated first, untimed: its rollback is timed
    run_stores([root], StoreOptions())
    work = lambda: rollback_stores([root], RollbackOptions(**options))
else:
    work = lambda: run_stores([root], StoreOptions(**options))
started = time.perf_counter()
run = work()
elapsed = time.perf_counter() - started
bad = [f for f in run.files if f.status == "error"]
print(elapsed if not bad else f"error: {bad[0].path}: {bad[0].message}")
"""
COMPARED = {  # in this order: the last two free inodes
    "backup": {},
    "jobs2": {"jobs": 2},
    "check": {"check": True},
    "no-backup": {"backup": False},
    "rollback": {"rollback": True},
}


def in_child(code: Path, root: Path, options: dict[str, Any]) -> float:
    """Seconds a migration of `root` takes with the `jp_migrate` under `code`, timed in a
    child process after its imports."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(code), str(root), repr(options)],
        capture_output=True,
        text=True,
        check=True,
    )
    out = done.stdout.strip()
    if out.startswith("error"):
        raise SystemExit(f"{code}: {out}")
    return float(out)


def peak_memory(root: Path) -> int:
    """Max RSS (bytes) of a child process that migrates `root` through the CLI."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    subprocess.run(
        [sys.executable, "-m", "jp_migrate", "conversations", str(root)],
        check=False,
        capture_output=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of RUSAGE_CHILDREN is the largest child so far (kB on Linux); children run in
    # increasing size order here, so a growth means this child set the new peak.
    return max(after, before) * 1024


def _largest(root: Path) -> int:
    return max(p.stat().st_size for p in events_files(root))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--size", type=float, default=1.0, help="fraction of the 1,000-conversation, 100 MB store"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of timings (each phase once per round); the best of each phase",
    )
    parser.add_argument("--no-memory", action="store_true", help="skip the peak-memory runs")
    parser.add_argument(
        "--settle",
        type=float,
        default=61.0,
        help="seconds between rounds, for the inodes --no-backup freed to age (see above)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--dir", help="where to generate the stores (default: the system temp dir)")
    parser.add_argument(
        "--against", help="a directory holding another jp_migrate: time both, interleaved"
    )
    parser.add_argument(
        "--new", help="with --against: the jp_migrate to compare (default: this checkout's)"
    )
    args = parser.parse_args(argv)
    conversations = max(4, int(1_000 * args.size))
    total = int(100_000_000 * args.size)
    with tempfile.TemporaryDirectory(prefix="bench-store-", dir=args.dir) as tmp:
        scratch = Path(tmp)
        source = generate_store(scratch / "source", conversations=conversations, total_bytes=total)
        os.sync()
        data = sum(p.stat().st_size for p in events_files(source))
        figures: dict[str, Any] = {
            "conversations": conversations,
            "bytes": data,
            "largest": _largest(source),
        }

        counter = iter(range(10_000))
        cpu: dict[str, float] = {}
        times: dict[str, list[float]] = {}

        def once(name: str, run: Callable[[Path], Any], root: Path | None = None) -> Path:
            """One timing on `root`, by default a fresh copy of the legacy store (copying is
            not timed); the store it ran on."""
            if root is None:
                root = _fresh(source, scratch, f"run{next(counter)}")
            times.setdefault(name, []).append(_timed(lambda: run(root)))
            cpu[name] = min(cpu.get(name, CPU[0]), CPU[0])
            # The copies stay until the end: removing 100 MB frees its blocks, and on a disk
            # mounted with `discard` that work spills into whatever is timed next.
            return root

        _migrate(_fresh(source, scratch, "warm-up"), check=True)  # imports, caches: not the work
        # Rounds, each timing every phase once: a busy spell of the machine then slows all
        # phases of a round alike instead of all repeats of one phase. Best of the rounds.
        for round_ in range(args.repeat):
            if round_:
                os.sync()  # the freed inodes' table blocks written back: they age in a minute
                time.sleep(args.settle)
            once("baseline", baseline)
            once("no-write", no_write, source)
            migrated = [
                (1, once("backup", lambda r: _migrate(r))),
                (2, once("jobs2", lambda r: _migrate(r, jobs=2))),
            ]
            once("check", lambda r: _migrate(r, check=True))
            once("floor", syscall_floor)
            if args.against:
                here = Path(args.new) if args.new else Path(__file__).resolve().parents[1]
                pair = [("old", Path(args.against)), ("new", here)]
                for name, options in COMPARED.items():  # frees inodes last
                    # Each goes first in every other round: the second of a pair runs slower.
                    for label, code in pair if round_ % 2 == 0 else pair[::-1]:
                        root = _fresh(source, scratch, f"run{next(counter)}")
                        times.setdefault(f"{label}:{name}", []).append(
                            in_child(code, root, options)
                        )
            # These free inodes: last. The two rollbacks each go first in every other round.
            for jobs, root in migrated if round_ % 2 == 0 else migrated[::-1]:
                once(ROLLBACKS[jobs], lambda r, j=jobs: _rollback(r, j), root)
            once("no-backup", lambda r: _migrate(r, backup=False))
        seconds = {name: min(values) for name, values in times.items()}
        figures["seconds"] = {k: round(v, 3) for k, v in seconds.items()}
        figures["ratios"] = {k: round(seconds[k] / seconds["baseline"], 3) for k in TARGETS}
        figures["floor_ratio"] = round(seconds["floor"] / seconds["baseline"], 3)
        figures["no_write_ratios"] = {
            k: round(seconds[k] / seconds["no-write"], 3) for k in [*TARGETS, "floor"]
        }
        figures["cpu_seconds"] = {k: round(v, 3) for k, v in cpu.items()}
        figures["cpu_ratios"] = {k: round(cpu[k] / cpu["baseline"], 3) for k in TARGETS}
        figures["baseline_mb_per_s"] = round(data / 1e6 / seconds["baseline"], 1)
        figures["rollback_ratios"] = {
            name: round(seconds[name] / seconds["baseline"], 3) for name in ROLLBACKS.values()
        }
        figures["rollback_jobs2_speedup"] = round(
            seconds["rollback"] / seconds["rollback-jobs2"], 3
        )
        if args.against:
            figures["compared"] = {
                name: {
                    "old": round(seconds[f"old:{name}"], 3),
                    "new": round(seconds[f"new:{name}"], 3),
                    "new_to_old": round(seconds[f"new:{name}"] / seconds[f"old:{name}"], 3),
                    "old_to_baseline": round(seconds[f"old:{name}"] / seconds["baseline"], 3),
                    "new_to_baseline": round(seconds[f"new:{name}"] / seconds["baseline"], 3),
                }
                for name in COMPARED
            }
        if not args.no_memory:
            peak = peak_memory(_fresh(source, scratch, "memory"))
            figures["peak_rss"] = peak
            figures["peak_budget"] = 3 * figures["largest"] + 100_000_000
            big = generate_store(
                scratch / "big",
                conversations=max(4, conversations // 10),
                total_bytes=total // 10,
                largest=10 * figures["largest"],
                seed=59,
            )
            figures["big_largest"] = _largest(big)
            figures["big_peak_rss"] = peak_memory(big)
            figures["big_peak_budget"] = 3 * figures["big_largest"] + 100_000_000
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"store: {conversations} conversations, {data / 1e6:.1f} MB, largest events.json {figures['largest'] / 1e6:.2f} MB"
        )
        print(
            f"baseline (stdlib load + pretty dump into the file): {seconds['baseline']:.2f}s ({figures['baseline_mb_per_s']} MB/s)"
            f"   [CPU {cpu['baseline']:.2f}s]"
        )
        print(
            f"  no-write (the same, dumped to a string only): {seconds['no-write']:.2f}s"
            f"   [CPU {cpu['no-write']:.2f}s]"
        )
        for name, target in TARGETS.items():
            ratio = figures["ratios"][name]
            verdict = "ok" if ratio <= target else "MISSED"
            print(
                f"{name:>10}: {seconds[name]:.2f}s  {ratio:.3f}x baseline (target <= {target}x) {verdict}"
                f"   [CPU {cpu[name]:.2f}s, {figures['cpu_ratios'][name]:.3f}x]"
                f"   [{figures['no_write_ratios'][name]:.3f}x no-write]"
            )
        for name, ratio in figures["rollback_ratios"].items():
            print(
                f"{name:>14}: {seconds[name]:.2f}s  {ratio:.3f}x baseline   [CPU {cpu[name]:.2f}s]"
            )
        print(f"  rollback --jobs 2 is {figures['rollback_jobs2_speedup']:.3f}x as fast as serial")
        print(
            f"{'floor':>10}: {seconds['floor']:.2f}s  {figures['floor_ratio']:.3f}x baseline"
            f"   [{figures['no_write_ratios']['floor']:.3f}x no-write]"
            f" (read + create temp + write + fsync + rename per file, nothing else)"
        )
        for name, row in figures.get("compared", {}).items():
            print(
                f"{name:>10}: old {row['old']:.2f}s ({row['old_to_baseline']:.3f}x baseline)"
                f"  new {row['new']:.2f}s ({row['new_to_baseline']:.3f}x baseline)"
                f"  new/old {row['new_to_old']:.3f}"
            )
        if "peak_rss" in figures:
            for label, peak, budget, largest in (
                ("store", figures["peak_rss"], figures["peak_budget"], figures["largest"]),
                (
                    "10x largest",
                    figures["big_peak_rss"],
                    figures["big_peak_budget"],
                    figures["big_largest"],
                ),
            ):
                verdict = "ok" if peak <= budget else "MISSED"
                print(
                    f"peak RSS ({label}, largest {largest / 1e6:.1f} MB): {peak / 1e6:.1f} MB (budget {budget / 1e6:.1f} MB) {verdict}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
