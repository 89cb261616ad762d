"""The terminal report (rich): colour only on a terminal, never when `NO_COLOR` is set."""

from __future__ import annotations

import io
import os
import re
import sys
from typing import IO

from rich.console import Console
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
TABLE_LIMIT = 200  # rows; larger sections print as lines


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
    return Text(label, style=_STYLE.get(label.strip(), ""))


# SGR codes for diffs, written directly: rich would re-wrap every line of every diff.
_SGR = {"bold": "1", "dim": "2", "red": "31", "green": "32", "cyan": "36"}
_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("+", "green"), ("-", "red"), ("@@", "cyan"))


def _paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_SGR[style]}m{text}\x1b[0m" if color and style else text


def _diff(path: str, diff: str, width: int, color: bool) -> str:
    """A rule naming the file, then the diff, its lines coloured like `git diff` (when colour is on)."""
    title = f"── {path} "
    out = [_paint(title + "─" * max(0, width - len(title)), "dim", color)]
    for line in diff.rstrip("\n").split("\n"):
        style = next((style for prefix, style in _DIFF_STYLES if line.startswith(prefix)), "")
        out.append(_paint(line, style, color))
    return "\n".join(out) + "\n"


Row = tuple[str, list[str | Text]]  # (status or verdict label, the cells after the label)

NARROW = 60  # columns; below this a table cannot hold a path: one line per row instead
FREE_TEXT = ("Message", "Differences")  # columns that wrap at their spaces
FREE_MIN = 16  # columns a free-text column keeps beside a long path
FREE_WANT = 60  # columns a free-text column is given, when there is room, before it wraps


def _blank(cell: str | Text) -> bool:
    return str(cell) in ("", "0")


def _present(columns: tuple[str, ...], rows: list[Row]) -> list[int]:
    """Indexes (into a row's cells) of the columns worth showing: the name, and every
    column after the label in which some row says something."""
    keep = [0]
    for index in range(1, len(columns) - 1):
        if any(not _blank(cells[index]) for _, cells in rows):
            keep.append(index)
    return keep


def wrap_path(path: str, width: int) -> str:
    """`path` in lines of at most `width`, broken after a `/` (inside a name only when the
    name alone is wider)."""
    lines: list[str] = []
    current = ""
    for part in re.split(r"(?<=/)", path):
        while len(part) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(part[:width])
            part = part[width:]
        if current and len(current) + len(part) > width:
            lines.append(current)
            current = part
        else:
            current += part
    lines.append(current)
    return "\n".join(line for line in lines if line)


def _as_lines(
    console: Console,
    title: str,
    columns: tuple[str, ...],
    rows: list[Row],
    keep: list[int],
    quiet: str | None,
) -> None:
    """One line per row (`would migrate  path  (events 5/40)`), never broken by us; rows
    labelled `quiet` are counted, not listed, when `quiet` is given."""
    lines = [Text(title, style="italic")]
    for label, cells in rows:
        if label == quiet:
            continue
        details = ", ".join(
            f"{columns[index + 1].lower()} {cells[index]}"
            for index in keep[1:]
            if not _blank(cells[index])
        )
        lines.append(
            Text.assemble(
                _status(f"{label:<13}"), " ", str(cells[0]), f"  ({details})" if details else ""
            )
        )
    hidden = sum(label == quiet for label, _ in rows) if quiet else 0
    if hidden:
        lines.append(Text(f"… and {hidden} {quiet}", style="dim"))
    # one print (per-line prints cost as much as table rows); soft_wrap: the terminal wraps
    console.print(Text("\n").join(lines), soft_wrap=True)


def _section(
    console: Console, title: str, columns: tuple[str, ...], rows: list[Row], quiet: str
) -> None:
    """A table of the columns that say something, its names broken after a `/` (inside a
    name only when that name alone is wider than the column can be).

    Below NARROW columns, one line per row; past TABLE_LIMIT rows (rich tables cost
    ~2 ms a row), one line per row that is not `quiet`, and a count of the quiet ones.
    """
    if not rows:
        console.print(Text(f"{title}: none found", style="italic"), soft_wrap=True)
        return
    keep = _present(columns, rows)
    if console.width < NARROW or len(rows) > TABLE_LIMIT:
        _as_lines(console, title, columns, rows, keep, quiet if len(rows) > TABLE_LIMIT else None)
        return
    shown = [columns[0], columns[1], *(columns[index + 1] for index in keep[1:])]
    widths = {
        name: max([len(name), *(len(str(cells[index])) for _, cells in rows)])
        for name, index in zip(shown[2:], keep[1:], strict=True)
    }
    label_width = max([len(columns[1]), *(len(label) for label, _ in rows)])
    fixed = label_width + sum(
        min(w, FREE_MIN) if name in FREE_TEXT else w for name, w in widths.items()
    )
    overhead = 3 * len(shown) + 1  # a rule between columns and at each edge, a space each side
    longest = max([len(columns[0]), *(len(str(cells[0])) for _, cells in rows)])
    available = (
        console.width
        - overhead
        - fixed
        + sum(min(w, FREE_MIN) for name, w in widths.items() if name in FREE_TEXT)
    )
    free_want = sum(min(w, FREE_WANT) for name, w in widths.items() if name in FREE_TEXT)
    # The names first when all fits; else they share with the free text, half each at worst.
    room = max(available - free_want, available // 2) if free_want else available
    # ... and never so narrow that a name (a path component) must break, while the free
    # text keeps FREE_MIN each.
    component = max(len(part) for _, cells in rows for part in re.split(r"(?<=/)", str(cells[0])))
    floor = min(component, console.width - overhead - fixed)
    target = max(12, floor, min(longest, room))
    names = [wrap_path(str(cells[0]), target) for _, cells in rows]
    # As wide as the widest line the names broke into: what is left goes to the free text.
    name_width = max([len(columns[0]), *(len(part) for n in names for part in n.split("\n"))])
    table = Table(title=title, title_justify="left", expand=False)
    table.add_column(columns[0], width=name_width, no_wrap=True)
    table.add_column(columns[1], no_wrap=True)
    for name in shown[2:]:
        table.add_column(name, overflow="fold", no_wrap=name not in FREE_TEXT)
    for (label, cells), wrapped in zip(rows, names, strict=True):
        # A str cell would be read as rich markup: a case named `[/usr/bin]` is text.
        plain = [c if isinstance(c, Text) else Text(c) for c in cells]
        name = Text(wrapped, style=plain[0].style)
        table.add_row(name, _status(label), *(plain[index] for index in keep[1:]))
    console.print(table)


def _here(path: str) -> str:
    """An absolute path inside the working directory, shown relative to it."""
    if not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if relative == ".." or relative.startswith(".." + os.sep) else relative


def _store_rows(report: Report, files: list[StoreFile]) -> list[Row]:
    return [
        (
            status_label(report, f),
            [
                _here(f.path),
                f"{f.events_migrated}/{f.events_total}",
                str(len(f.repairs)),
                notes(f),
            ],
        )
        for f in files
    ]


def _tools_rows(report: Report, files: list[ToolFile]) -> list[Row]:
    rows: list[Row] = []
    for f in files:
        rewritten, unhandled = site_counts(f)
        cells: list[str | Text] = [
            _here(f.path),
            str(rewritten),
            Text(str(unhandled), style="bold red" if unhandled else ""),
            notes(f),
        ]
        rows.append((status_label(report, f), cells))
    return rows


def _verify_rows(cases: list[VerifyCase]) -> list[Row]:
    return [(c.verdict, [case_label(c), ", ".join(c.differences), c.message]) for c in cases]


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
    for f in [*(report.store or []), *(report.tools or [])]:
        if f.diff:
            buffer.write(_diff(f.path, f.diff, console.width, color))
    if report.store is not None:
        columns = ("File", "Status", "Events", "Repairs", "Message")
        _section(
            console, "Conversation stores", columns, _store_rows(report, report.store), "unchanged"
        )
    if report.tools is not None:
        columns = ("File", "Status", "Rewritten", "Unhandled", "Message")
        _section(console, "Tool sources", columns, _tools_rows(report, report.tools), "unchanged")
        sites = [
            Text.assemble(
                (f"{f.path}:{s.line}:{s.column}", "bold"), " ", (s.rule, "red"), " ", s.reason
            )
            for f in report.tools
            for s in f.sites
            if s.action == "unhandled"
        ]
        if sites:
            console.print(Text("\n").join(sites))
    if report.verify is not None:
        columns = ("Case", "Verdict", "Differences", "Message")
        _section(console, "Verification", columns, _verify_rows(report.verify), "match")
        for c in report.verify:
            if c.verdict in ("mismatch", "error") and c.inputs:
                console.print(
                    Text(f"case {c.index} inputs: ", style="bold"),
                    Text(str(c.inputs)),
                    soft_wrap=True,
                )
    bad = report.totals.errors or report.totals.mismatches or report.totals.unhandled_sites
    summary_style = (
        "bold red" if bad else ("bold yellow" if report.totals.changed else "bold green")
    )
    console.print(
        Text(
            f"jp-migrate {report.command}: {headline(report, report.totals)}", style=summary_style
        ),
        soft_wrap=True,
    )
    return buffer.getvalue()
