"""Click options every capability's command shares, defined once (click only: cheap to import)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

REPORT_FORMATS = "terminal, json, markdown, junit or sarif"

report_option = click.option(
    "--report",
    "reports",
    multiple=True,
    metavar="FORMAT[=FILE]",
    help=f"Write a report: {REPORT_FORMATS}; to FILE or - (stdout). Repeatable.",
)


def jobs_option(what: str, *, default: int | None = 1) -> Callable[[Any], Any]:
    """`--jobs/-j N`: `what` says what runs in parallel (its help text)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=default,
        show_default=default is not None,
        help=what,
    )
