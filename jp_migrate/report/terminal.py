"""The terminal report (rich): colour only on a terminal, never when `NO_COLOR` is set."""

from __future__ import annotations

import io
import os
import sys
from typing import IO

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from jp_migrate.contract.report import Report, StoreFile, ToolFile, VerifyCase
from jp_migrate.report._text import case_label, headline, site_counts, status_label
from jp_migrate.report.totals import normalize, notes

_STYLE = {
    "migrated": "yellow",
    "would migrate": "yellow",
    "unchanged": "green",
    "error": "bold red",
    "skipped": "dim",
    "match": "green",
    "expected": "cyan",
    "mismatch": "bold red",
}
PLAIN_WIDTH = 100
MAX_PLAIN_WIDTH = 200


def _plain_width(report: Report) -> int:
    """Wide enough that paths do not wrap in a CI log, and the same for the same report."""
    paths = [len(f.path) for f in [*(report.store or []), *(report.tools or [])]]
    return max(PLAIN_WIDTH, min(MAX_PLAIN_WIDTH, max(paths, default=0) + 60))


def wants_color(stream: IO[str] | None = None) -> bool:
    """Colour iff the stream is a terminal and `NO_COLOR` is unset or empty (no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _status(label: str) -> Text:
    return Text(label, style=_STYLE.get(label, ""))


def _store_table(report: Report, files: list[StoreFile]) -> Table:
    table = Table(title="Conversation stores", title_justify="left", expand=False)
    for name in ("File", "Status", "Events", "Repairs", "Message"):
        table.add_column(name, overflow="fold")
    for f in files:
        table.add_row(
            f.path,
            _status(status_label(report, f)),
            f"{f.events_migrated}/{f.events_total}",
            str(len(f.repairs)),
            notes(f),
        )
    return table


def _tools_table(report: Report, files: list[ToolFile]) -> Table:
    table = Table(title="Tool sources", title_justify="left", expand=False)
    for name in ("File", "Status", "Rewritten", "Unhandled", "Message"):
        table.add_column(name, overflow="fold")
    for f in files:
        rewritten, unhandled = site_counts(f)
        table.add_row(
            f.path,
            _status(status_label(report, f)),
            str(rewritten),
            Text(str(unhandled), style="bold red" if unhandled else ""),
            notes(f),
        )
    return table


def _verify_table(cases: list[VerifyCase]) -> Table:
    table = Table(title="Verification", title_justify="left", expand=False)
    for name in ("Case", "Verdict", "Differences", "Message"):
        table.add_column(name, overflow="fold")
    for c in cases:
        table.add_row(case_label(c), _status(c.verdict), ", ".join(c.differences), c.message)
    return table


def render_terminal(report: Report, *, color: bool | None = None, width: int | None = None) -> str:
    """Render for a person; `color=None` asks `wants_color()` about stdout."""
    report = normalize(report)
    color = wants_color() if color is None else color
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        width=width or (Console().width if color else _plain_width(report)),
        highlight=False,
        emoji=False,
    )
    files: list[StoreFile | ToolFile] = [*(report.store or []), *(report.tools or [])]
    for f in files:
        if f.diff:
            console.rule(escape(f.path), align="left", style="dim")
            if color:
                console.print(
                    Syntax(
                        f.diff.rstrip("\n"), "diff", theme="ansi_dark", background_color="default"
                    )
                )
            else:
                console.print(Text(f.diff.rstrip("\n")))
    if report.store is not None:
        console.print(_store_table(report, report.store))
    if report.tools is not None:
        console.print(_tools_table(report, report.tools))
        for f in report.tools:
            for s in f.sites:
                if s.action == "unhandled":
                    where = Text(f"{f.path}:{s.line}:{s.column}", style="bold")
                    console.print(where, Text(s.rule, style="red"), Text(s.reason))
    if report.verify is not None:
        console.print(_verify_table(report.verify))
        for c in report.verify:
            if c.verdict in ("mismatch", "error") and c.inputs:
                console.print(Text(f"case {c.index} inputs: ", style="bold"), Text(str(c.inputs)))
    bad = report.totals.errors or report.totals.mismatches or report.totals.unhandled_sites
    summary_style = (
        "bold red" if bad else ("bold yellow" if report.totals.changed else "bold green")
    )
    console.print(
        Text(f"jp-migrate {report.command}: {headline(report, report.totals)}", style=summary_style)
    )
    return buffer.getvalue()
