"""Report rendering benchmark: every format against plain `json.dumps` of the same report.

Builds one synthetic `check` report (conversation files with diffs and
repairs, tool files with rewritten and unhandled sites, verify cases),
renders it in every format and reports each median time as a ratio to
`json.dumps(report.model_dump(mode="json"))`, measured in the same process.
Exits 1 when a ratio exceeds --limit.

    python benchmarks/bench_reports.py [--files 5000] [--repeat 5] [--limit 40]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable

from jp_migrate.contract.report import Repair, Report, Site, StoreFile, ToolFile, VerifyCase
from jp_migrate.report import FORMATS, render_report

DIFF = "".join(f'@@ events[{i}] @@\n-  "content": "aGk=",\n+  "content": [\n' for i in range(4))


def synthetic_report(files: int) -> Report:
    store = [
        StoreFile(
            path=f".jp/conversations/{i:06d}-a-conversation/events.json",
            conversation=f"{i:06d}-a-conversation",
            status="migrated" if i % 3 else "unchanged",
            events_total=40,
            events_migrated=4 if i % 3 else 0,
            repairs=[
                Repair(event_index=2, event_id=f"call_{i}", field="content", kind="urlsafe-base64")
            ]
            if i % 7 == 0
            else [],
            diff=DIFF if i % 3 else None,
        )
        for i in range(files)
    ]
    tools = [
        ToolFile(
            path=f"tools/tool_{i}.py",
            status="migrated",
            sites=[
                Site(line=j * 10 + 1, column=5, rule="codemod-success-dict", action="rewritten")
                for j in range(3)
            ]
            + [
                Site(
                    line=40,
                    column=9,
                    rule="codemod-dynamic-type",
                    action="unhandled",
                    reason="not a constant",
                )
            ],
            diff=DIFF,
        )
        for i in range(max(1, files // 10))
    ]
    verify = [
        VerifyCase(index=i, verdict="match" if i % 4 else "expected")
        for i in range(max(1, files // 50))
    ]
    return Report(
        command="check", dry_run=True, exit_code=1, store=store, tools=tools, verify=verify
    )


def median_seconds(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--files", type=int, default=5000, help="conversation files (tools: a tenth)"
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--limit", type=float, default=40.0, help="largest acceptable ratio to json.dumps"
    )
    args = parser.parse_args(argv)
    report = synthetic_report(args.files)
    baseline = median_seconds(lambda: json.dumps(report.model_dump(mode="json")), args.repeat)
    print(
        f"report: {args.files} store files, {len(report.tools or [])} tool files, {len(report.verify or [])} cases"
    )
    print(f"{'json.dumps (baseline)':<22} {baseline * 1000:9.1f} ms")
    worst = 0.0
    for fmt in sorted(FORMATS):
        seconds = median_seconds(
            lambda fmt=fmt: render_report(report, fmt, color=False), args.repeat
        )
        ratio = seconds / baseline
        worst = max(worst, ratio)
        print(f"{fmt:<22} {seconds * 1000:9.1f} ms  {ratio:6.1f}x")
    if worst > args.limit:
        print(
            f"FAIL: a format takes {worst:.1f}x json.dumps (limit {args.limit}x)", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
