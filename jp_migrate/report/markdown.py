"""The Markdown report: for a pull-request comment or `$GITHUB_STEP_SUMMARY`.

Totals, one table per capability, then each diff collapsed in `<details>`.
Diffs stop being inlined once the document nears GitHub's comment size limit
(65,536 characters); the tables always stay complete.
"""

from __future__ import annotations

import re

from jp_migrate.contract.report import Report, StoreFile, ToolFile, VerifyCase
from jp_migrate.report._text import TOTAL_ROWS, case_label, headline, site_counts, status_label
from jp_migrate.report.totals import normalize, notes

DIFF_BUDGET = 50_000
ROW_LIMIT = 100  # rows per table: a comment must stay under GitHub's size limit
_BACKTICKS = re.compile(r"`+")


def _one_line(text: object) -> str:
    """Table-cell text: on one line, its pipes escaped (GFM honours `\\|` even in code)."""
    return str(text).replace("\r\n", "\n").replace("\n", " ").strip().replace("|", "\\|")


def cell(text: object) -> str:
    """A table cell: one line, pipes and HTML-ish characters escaped."""
    s = _one_line(text)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def code(text: str) -> str:
    """Inline code that survives backticks inside `text`. Not HTML-escaped: inside a
    code span `<` is shown as it is and `&lt;` would be shown as those four characters."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{_one_line(text)}{pad}{ticks}" if text else ""


def _fenced(body: str, lang: str) -> str:
    # A line of 3+ backticks indented at most 3 spaces would close the fence (CommonMark).
    longest = max((len(m) for m in re.findall(r"^ {0,3}(`{3,})", body, re.MULTILINE)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body.rstrip(chr(10))}\n{fence}"


def _table(header: list[str], rows: list[list[str]], quiet: list[bool] | None = None) -> list[str]:
    """A Markdown table. Past ROW_LIMIT rows, the quiet ones (unchanged files, matching
    cases) go first, then the rest past the limit; a line says how many are not shown."""
    shown = rows
    if len(rows) > ROW_LIMIT:
        loud = [row for row, q in zip(rows, quiet or [False] * len(rows), strict=True) if not q]
        shown = loud[:ROW_LIMIT]
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in shown]
    if len(shown) < len(rows):
        out += [
            "",
            f"_{len(rows) - len(shown)} more rows not shown (unchanged ones first); the JSON report has them all._",
        ]
    return out


def _store_section(report: Report, files: list[StoreFile]) -> list[str]:
    rows = [
        [
            code(f.path),
            cell(status_label(report, f)),
            f"{f.events_migrated}/{f.events_total}",
            str(len(f.repairs)),
            cell(", ".join(f.rules)),
            cell(notes(f)),
        ]
        for f in files
    ]
    header = ["File", "Status", "Events migrated", "Repairs", "Rules", "Message"]
    quiet = [f.status == "unchanged" and not notes(f) for f in files]
    return [
        "### Conversation stores",
        "",
        *(_table(header, rows, quiet) if rows else ["No conversation files found."]),
    ]


def _tools_section(report: Report, files: list[ToolFile]) -> list[str]:
    rows = []
    for f in files:
        rewritten, unhandled = site_counts(f)
        rows.append(
            [
                code(f.path),
                cell(status_label(report, f)),
                str(rewritten),
                str(unhandled),
                cell(notes(f)),
            ]
        )
    header = ["File", "Status", "Rewritten sites", "Unhandled sites", "Message"]
    quiet = [f.status == "unchanged" and not f.sites and not f.message for f in files]
    out = [
        "### Tool sources",
        "",
        *(_table(header, rows, quiet) if rows else ["No tool sources found."]),
    ]
    unhandled_rows = [
        [code(f"{f.path}:{s.line}:{s.column}"), code(s.rule), cell(s.reason)]
        for f in files
        for s in f.sites
        if s.action == "unhandled"
    ]
    if unhandled_rows:
        out += [
            "",
            "#### Unhandled sites (migrate these by hand)",
            "",
            *_table(["Where", "Rule", "Reason"], unhandled_rows),
        ]
    return out


def _verify_section(cases: list[VerifyCase]) -> list[str]:
    rows = [
        [cell(case_label(c)), cell(c.verdict), cell(", ".join(c.differences)), cell(c.message)]
        for c in cases
    ]
    header = ["Case", "Verdict", "Differences", "Message"]
    quiet = [c.verdict == "match" for c in cases]
    return [
        "### Verification (before vs after)",
        "",
        *(_table(header, rows, quiet) if rows else ["No cases."]),
    ]


def _diffs(files: list[StoreFile | ToolFile], budget: int) -> tuple[list[str], int]:
    out: list[str] = []
    omitted = 0
    for f in files:
        if not f.diff:
            continue
        block = [
            f"<details><summary>{cell(f.path)}</summary>",
            "",
            _fenced(f.diff, "diff"),
            "",
            "</details>",
            "",
        ]
        size = sum(len(line) + 1 for line in block)
        if size > budget:
            omitted += 1
            continue
        budget -= size
        out += block
    return out, omitted


def render_markdown(report: Report) -> str:
    report = normalize(report)
    t = report.totals
    lines = [f"## jp-migrate {cell(report.command)}{' (dry run)' if report.dry_run else ''}", ""]
    lines += [f"**{cell(headline(report, t))}** (exit code {report.exit_code})", ""]
    lines += _table(
        ["Total", "Count"], [[label, str(getattr(t, key))] for key, label in TOTAL_ROWS]
    )
    if report.store is not None:
        lines += ["", *_store_section(report, report.store)]
    if report.tools is not None:
        lines += ["", *_tools_section(report, report.tools)]
    if report.verify is not None:
        lines += ["", *_verify_section(report.verify)]
    files: list[StoreFile | ToolFile] = [*(report.store or []), *(report.tools or [])]
    diffs, omitted = _diffs(files, DIFF_BUDGET)
    if diffs or omitted:
        lines += ["", "### Diffs", "", *diffs]
        if omitted:
            lines += [
                f"_{omitted} more diff(s) omitted to fit a comment; run `jp-migrate check --diff` locally._",
                "",
            ]
    if report.timings:
        lines += [
            "",
            *_table(
                ["Phase", "Seconds"], [[cell(k), f"{v:.3f}"] for k, v in report.timings.items()]
            ),
        ]
    return "\n".join(lines).rstrip("\n") + "\n"
