"""Measure the codemod on the blind tool corpus: sites rewritten/refused, then `verify` per tool.

    python benchmarks/corpus_tools.py [CORPUS] [--no-verify] [--jobs 2]

CORPUS (default tests/corpus/tools) is a JP workspace: tools under tools/ and
servers/, their configs under .jp/, their cases in cases.jsonl (each line names
its tool). Nothing in CORPUS is touched: it is copied twice into a temporary
directory, a control (`before`: tools run as they are, their side effects kept
in the copy) and a candidate (`after`: the codemod rewrites it in place). Then
every tool named in cases.jsonl goes through `jp-migrate verify` (control read
as the legacy host reads it, candidate as the RFD 058 host does).

Prints: Outcome sites found / rewritten / refused (by rule and reason), read
sites, and the verify verdicts (match / expected, by named difference /
mismatch / error), with each refused site and each mismatch listed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from jp_migrate.codemod import ToolsOptions, migrate_tools
from jp_migrate.codemod.sites import READS_LEGACY_KEYS, format_site

DEFAULT = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "tools"


def _copy(corpus: Path, to: Path) -> Path:
    shutil.copytree(corpus, to, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return to


def _tools_named(cases: Path) -> list[str]:
    names: list[str] = []
    for line in cases.read_text("utf-8").splitlines():
        if line.strip():
            tool = json.loads(line).get("tool")
            if tool and tool not in names:
                names.append(tool)
    return names


def measure_sites(after: Path) -> tuple[Counter[str], list[str]]:
    """Run the codemod over `after`'s tools (rewriting them); counts and the refused sites."""
    counts: Counter[str] = Counter()
    refused: list[str] = []
    # The tool directories, as a user runs it (data/ holds deliberately broken Python).
    roots = [after / d for d in ("tools", "servers") if (after / d).is_dir()]
    files = migrate_tools(roots, ToolsOptions(write=True))
    for f in files:
        counts[f"files {f.status}"] += 1
        if f.status == "error":
            refused.append(f"{f.path}: error: {f.message}")
        for site in f.sites:
            kind = "read" if site.rule == READS_LEGACY_KEYS else "outcome"
            counts[f"{kind} {site.action}"] += 1
            if site.action == "unhandled":
                refused.append(format_site(str(Path(f.path).relative_to(after)), site))
    return counts, refused


def _env(python: Path) -> dict[str, str]:
    """`python`'s directory first on PATH: the tools' `python3` (and a tool running another)."""
    return {**os.environ, "PATH": f"{python.parent}{os.pathsep}{os.environ['PATH']}"}


def verify_tool(
    before: Path, after: Path, tool: str, jobs: int, python: Path
) -> list[dict[str, object]]:
    out = subprocess.run(
        [
            sys.executable, "-m", "jp_migrate", "verify",
            "--before-workspace", str(before), "--after-workspace", str(after),
            "--tool", tool, "--cases", str(before / "cases.jsonl"),
            "--jobs", str(jobs), "--timeout", "60", "--report", "json=-",
        ],
        capture_output=True, text=True, check=False, env=_env(python),
    )  # fmt: skip
    try:
        return list(json.loads(out.stdout)["verify"])
    except (ValueError, KeyError):
        message = (out.stderr or out.stdout).strip().splitlines()
        return [{"verdict": "error", "message": message[-1] if message else "no output"}]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--no-verify", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--python",
        type=Path,
        default=Path(sys.executable),
        help="the interpreter the tools run with (the corpus's servers need mcp<2: "
        "a venv with its requirements.txt)",
    )
    args = parser.parse_args()
    corpus: Path = args.corpus.resolve()
    with tempfile.TemporaryDirectory(prefix="jp-corpus-") as tmp:
        # Both copies keep the corpus's own name: a tool may print its directory's name.
        before = _copy(corpus, Path(tmp) / "before" / corpus.name)
        after = _copy(corpus, Path(tmp) / "after" / corpus.name)
        counts, refused = measure_sites(after)
        found = counts["outcome rewritten"] + counts["outcome unhandled"]
        share = counts["outcome rewritten"] / found if found else 1.0
        print(
            f"Outcome sites: {found} found, {counts['outcome rewritten']} rewritten "
            f"({share:.1%}), {counts['outcome unhandled']} refused; read sites refused: "
            f"{counts['read unhandled']}"
        )
        print(
            "files: "
            + ", ".join(f"{k[6:]} {v}" for k, v in sorted(counts.items()) if k.startswith("files"))
        )
        for line in refused:
            print(f"  refused {line}")
        if args.no_verify or not (corpus / "cases.jsonl").is_file():
            return 0
        return report_verdicts(before, after, args.jobs, args.python)


def report_verdicts(before: Path, after: Path, jobs: int, python: Path) -> int:
    """`jp-migrate verify` of every tool in before/cases.jsonl; prints the verdicts, and each
    case that is neither a match nor a named expected difference. 1 if there is one."""
    verdicts: Counter[str] = Counter()
    named: Counter[str] = Counter()
    bad: list[str] = []
    for tool in _tools_named(before / "cases.jsonl"):
        for case in verify_tool(before, after, tool, jobs, python):
            verdict = str(case["verdict"])
            verdicts[verdict] += 1
            if verdict == "expected":
                named.update(str(d) for d in case.get("differences", []))  # type: ignore[union-attr]
            elif verdict != "match":
                label = (case.get("inputs") or {}).get("case", "")  # type: ignore[union-attr]
                bad.append(f"{tool} {label}: {verdict}: {case.get('message', '')}")
    total = sum(verdicts.values())
    print(
        f"verify: {total} cases: {verdicts['match']} match, {verdicts['expected']} expected "
        f"({', '.join(f'{k} {v}' for k, v in sorted(named.items())) or 'none'}), "
        f"{verdicts['mismatch']} mismatch, {verdicts['error']} error"
    )
    for line in bad:
        print(f"  {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
