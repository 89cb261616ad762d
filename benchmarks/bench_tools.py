"""Benchmark: `jp-migrate tools --check` against parsing and regenerating every file with libcst.

    python benchmarks/bench_tools.py [--lines 50000] [--repeat 3]

Generates two trees of about `--lines` lines of Python in a temp dir: a mixed
one where one file in ten is a tool that prints legacy Outcomes, and one where
every file is such a tool. Times, in this process, the baseline (read, parse
with libcst, regenerate the code, for every file) and `migrate_tools(...,
ToolsOptions(write=False))` (what `--check` runs), then with `jobs=2` on the
all-tools tree. Prints the times and ratios; the targets from issue 4 are
≤0.3x (mixed), ≤1.3x (all tools) and ≤0.7x (all tools, --jobs 2).

Single-process rows compare CPU time of this process (`time.process_time`),
so other load on a shared machine does not skew them; the `--jobs 2` row can
only be wall-clock time, so run it on an otherwise idle machine. Baseline and
candidate runs alternate, and the best of `--repeat` is kept for each.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import libcst as cst

from jp_migrate.codemod import ToolsOptions, migrate_tools

TOOL = '''#!/usr/bin/env python3
"""Tool {n}: does a thing for JP and prints an Outcome."""

import json
import os
import sys
from json import dumps as emit


class Config{n}:
    def __init__(self, root: str, depth: int = {n}) -> None:
        self.root = root
        self.depth = depth

    def paths(self) -> list[str]:
        found = []
        for base, dirs, files in os.walk(self.root):
            if base.count(os.sep) > self.depth:
                dirs[:] = []
            found.extend(os.path.join(base, f) for f in files if f.endswith(".py"))
        return sorted(found)


def success(text: str) -> dict:
    return {{"type": "success", "content": text}}


def failure(message: str, transient: bool = False) -> dict:
    return {{
        "type": "error",
        "message": message,  # shown to the model
        "trace": [f"tool {n}"],
        "transient": transient,
    }}


def ask(context: dict) -> dict:
    return {{
        "type": "needs_input",
        "question": {{
            "id": "confirm_{n}",
            "text": "Apply the change?",
            "pre_amble": context.get("preview"),
            "answer_type": "Boolean",
            "default": False,
        }},
    }}


def summarize(paths: list[str], limit: int = 10) -> str:
    lines = [f"{{len(paths)}} files"]
    for path in paths[:limit]:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        lines.append(f"- {{path}} ({{size}} bytes)")
    if len(paths) > limit:
        lines.append(f"... and {{len(paths) - limit}} more")
    return "\\n".join(lines)


def run(context: dict) -> dict:
    arguments = context.get("arguments", {{}})
    answers = context.get("answers", {{}})
    root = arguments.get("root", ".")
    if not os.path.isdir(root):
        return failure(f"not a directory: {{root}}")
    if "confirm_{n}" not in answers:
        return ask(arguments)
    if not answers["confirm_{n}"]:
        return dict(type="success", content="Nothing done.")
    config = Config{n}(root)
    return success(summarize(config.paths()))


def main(argv: list[str]) -> int:
    context = json.loads(argv[1]) if len(argv) > 1 else {{}}
    try:
        print(json.dumps(run(context)))
    except OSError as exc:
        print(emit({{"type": "error", "message": str(exc), "trace": [], "transient": True}}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
'''

PLAIN = '''"""Module {n}: ordinary code with nothing for the codemod to do."""

import logging
import os
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


class ParseError{n}(ValueError):
    """Raised when a record cannot be read."""


@dataclass
class Record{n}:
    name: str
    size: int = 0
    tags: list[str] = field(default_factory=list)

    def label(self) -> str:
        return f"{{self.name}} ({{self.size}})"


def parse(line: str) -> Record{n}:
    parts = line.split(",")
    if len(parts) < 2:
        log.error("bad record: %s", line)
        raise ParseError{n}(line)
    name, size, *tags = parts
    return Record{n}(name.strip(), int(size), [t.strip() for t in tags])


def load(path: str) -> list[Record{n}]:
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip() or line.startswith("#"):
                continue
            try:
                records.append(parse(line))
            except ParseError{n}:
                log.warning("skipping line %d of %s", number, path)
    return records


def totals(records: list[Record{n}]) -> dict[str, int]:
    out: dict[str, int] = {{}}
    for record in records:
        for tag in record.tags or ["untagged"]:
            out[tag] = out.get(tag, 0) + record.size
    return dict(sorted(out.items()))


def largest(records: list[Record{n}], count: int = 5) -> list[Record{n}]:
    return sorted(records, key=lambda r: (-r.size, r.name))[:count]


def walk(root: str) -> list[str]:
    found = []
    for base, _dirs, files in os.walk(root):
        found.extend(os.path.join(base, f) for f in files if f.endswith(".csv"))
    return sorted(found)


def report(root: str) -> str:
    lines = []
    for path in walk(root):
        records = load(path)
        lines.append(f"{{path}}: {{len(records)}} records")
        for tag, size in totals(records).items():
            lines.append(f"  {{tag}}: {{size}}")
        for record in largest(records):
            lines.append(f"  * {{record.label()}}")
    return "\\n".join(lines)
'''


def make_tree(root: Path, lines: int, tool_every: int) -> int:
    """Files until `lines` lines; every `tool_every`-th is a tool. Returns the file count."""
    total = count = 0
    while total < lines:
        is_tool = count % tool_every == 0
        text = (TOOL if is_tool else PLAIN).format(n=count)
        package = root / f"pkg{count // 50}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"{'tool' if is_tool else 'mod'}_{count}.py").write_text(text, "utf-8")
        total += text.count("\n")
        count += 1
    return count


def baseline(root: Path) -> None:
    for path in sorted(root.rglob("*.py")):
        cst.parse_module(path.read_text("utf-8")).code  # noqa: B018 - regenerating is the point


def timed(fn: Callable[[], object], clock: Callable[[], float]) -> float:
    start = clock()
    fn()
    return clock() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        mixed, tools = Path(tmp, "mixed"), Path(tmp, "tools")
        n_mixed = make_tree(mixed, args.lines, 10)
        n_tools = make_tree(tools, args.lines, 1)
        check = ToolsOptions(write=False)
        # Sanity: the check finds work in every tool file and nothing else.
        found = migrate_tools([tools], check)
        assert all(f.status == "migrated" for f in found), (
            "every generated tool must need a rewrite"
        )
        rows = [
            ("mixed (1 file in 10 a tool)", mixed, n_mixed, check, 0.3),
            ("every file a tool", tools, n_tools, check, 1.3),
            ("every file a tool, --jobs 2", tools, n_tools, ToolsOptions(write=False, jobs=2), 0.7),
        ]
        failed = False
        print(
            f"{'tree':32} {'files':>6} {'baseline s':>11} {'check s':>9} {'ratio':>7} {'target':>7} clock"
        )
        for label, root, files, options, target in rows:
            clock = time.perf_counter if options.jobs > 1 else time.process_time
            base = ours = float("inf")
            for _ in range(args.repeat):
                base = min(base, timed(lambda root=root: baseline(root), clock))
                ours = min(
                    ours,
                    timed(lambda root=root, options=options: migrate_tools([root], options), clock),
                )
            ratio = ours / base
            failed |= ratio > target
            kind = "wall" if options.jobs > 1 else "cpu"
            print(
                f"{label:32} {files:>6} {base:>11.3f} {ours:>9.3f} {ratio:>6.2f}x {target:>6.1f}x {kind}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
