"""Report renderers: every format renders from the one `Report` model (`contract/report.py`).

    render_report(report, "markdown")          -> str
    emit_reports(report, ["terminal", "json=out/report.json", "sarif=-"])
    compute_totals(report)                     -> Totals

Every renderer first normalizes the report (sorted sections, recomputed
totals), so all formats agree on the counts and repeat byte for byte.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from jp_migrate.contract.report import Report
from jp_migrate.errors import JpMigrateError
from jp_migrate.files import edit
from jp_migrate.files.workspace import Boundary
from jp_migrate.report._text import case_label
from jp_migrate.report.json import render_json
from jp_migrate.report.junit import render_junit
from jp_migrate.report.markdown import render_markdown
from jp_migrate.report.sarif import render_sarif
from jp_migrate.report.terminal import render_terminal, wants_color
from jp_migrate.report.totals import compute_totals, normalize

__all__ = [
    "FORMATS",
    "Extras",
    "ReportSpec",
    "case_label",
    "compute_totals",
    "emit_reports",
    "normalize",
    "parse_spec",
    "render_report",
]

STDOUT = "-"


@dataclass(frozen=True)
class Extras:
    """What a renderer prints beside the report: colour (terminal) and rule descriptions (SARIF)."""

    color: bool | None = None  # None: decide from stdout
    rules: Mapping[str, str] = field(default_factory=dict)  # rule id -> one-line description


FORMATS: dict[str, Callable[[Report, Extras], str]] = {
    "json": lambda report, _: render_json(report),
    "junit": lambda report, _: render_junit(report),
    "markdown": lambda report, _: render_markdown(report),
    "sarif": lambda report, extras: render_sarif(report, rules=extras.rules),
    "terminal": lambda report, extras: render_terminal(report, color=extras.color),
}


def render_report(
    report: Report,
    fmt: str,
    *,
    color: bool | None = None,
    rules: Mapping[str, str] | None = None,
) -> str:
    """The report as text in `fmt`; `color` only matters to `terminal` (None: decide from
    stdout), `rules` (id -> description, for SARIF's rule descriptors) only to `sarif`."""
    renderer = FORMATS.get(fmt)
    if renderer is None:
        raise JpMigrateError(
            f"unknown report format {fmt!r} (choose from {', '.join(sorted(FORMATS))})"
        )
    return renderer(report, Extras(color, rules or {}))


@dataclass(frozen=True)
class ReportSpec:
    fmt: str
    target: str  # a file path, or "-" for stdout


def parse_spec(spec: str) -> ReportSpec:
    """`FORMAT` or `FORMAT=FILE` (`-` is stdout), as `--report` takes it."""
    fmt, sep, target = spec.partition("=")
    fmt = fmt.strip()
    if fmt not in FORMATS:
        raise JpMigrateError(
            f"--report {spec}: unknown report format {fmt!r} (choose from {', '.join(sorted(FORMATS))})"
        )
    if sep and not target:
        raise JpMigrateError(f"--report {spec}: missing file name after '='")
    return ReportSpec(fmt, target if sep else STDOUT)


def emit_reports(
    report: Report,
    specs: Sequence[str],
    *,
    rules: Mapping[str, str] | None = None,
    within: Path | None = None,
) -> None:
    """Write the report once per spec. Every spec is checked before anything is written.

    `rules` maps rule ids to their one-line descriptions (SARIF's rule descriptors).
    A FILE is written through `jp_migrate.files`: only as a regular file (a link, a FIFO
    or a device there is refused, never followed nor waited on). `within` is the
    directory FILEs must lie in (a config's reports: its repository); None for FILEs
    the user named on the command line, which may lie anywhere.
    """
    parsed = [parse_spec(spec) for spec in specs]
    for spec in parsed:
        if spec.target == STDOUT:
            sys.stdout.write(
                render_report(report, spec.fmt, color=wants_color(sys.stdout), rules=rules)
            )
            sys.stdout.flush()
            continue
        text = render_report(report, spec.fmt, color=False, rules=rules)
        path = Path(spec.target)
        try:
            if within is None:
                os.makedirs(path.parent, exist_ok=True)  # the user named it: as they spelt it
            boundary = Boundary.of(within) if within is not None else Boundary.named(path)
            edit.put(path, text.encode("utf-8"), boundary, create_dirs=within is not None)
        except JpMigrateError as exc:  # outside the repository, a link, a FIFO
            reason = str(exc).removeprefix(f"{spec.target}: ")
            raise JpMigrateError(
                f"{spec.target}: cannot write {spec.fmt} report: {reason}"
            ) from None
        except OSError as exc:
            raise JpMigrateError(
                f"{spec.target}: cannot write {spec.fmt} report: {exc.strerror or exc}"
            ) from None
