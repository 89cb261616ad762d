"""Click options the commands share, defined once so a name means one thing everywhere.

click only: cheap to import. The vocabulary (the same on `conversations`,
`rollback`, `tools`, `check` and `verify` where it applies):

    PATH...        what to work on; `.` when none is given
    --dry-run      write nothing, print what would change, exit 0
    --check        write nothing, exit 1 when something would change
    --diff         print the changes as a diff, write nothing (exit as --check)
    --quiet/-q     print only what needs attention (each command says what that is)
    --rule ID      an opt-in store rule, by id;  --rules DIR  the rules in DIR
    --report FORMAT[=FILE], --jobs/-j N, --timeout S, --timings
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

REPORT_FORMATS = "terminal, json, markdown, junit or sarif"
# How migrated store text is written (StoreOptions.encoding).
ENCODINGS = ("auto", "base64", "plain")

report_option = click.option(
    "--report",
    "reports",
    multiple=True,
    metavar="FORMAT[=FILE]",
    help=f"Write a report in FORMAT ({REPORT_FORMATS}) to FILE, or to stdout (no FILE, or -); "
    "repeatable.",
)


def quiet_option(what: str) -> Callable[[F], F]:
    """`--quiet/-q`: print only what needs attention, which `what` spells out per command."""
    return click.option(
        "--quiet", "-q", is_flag=True, help=f"Print only what needs attention: {what}."
    )


timings_option = click.option(
    "--timings",
    is_flag=True,
    help="Put durations in the report (off: the same input gives the same report).",
)

exclude_archived_option = click.option(
    "--exclude-archived",
    is_flag=True,
    default=None,
    help="Leave out archived conversations (conversations/.archive/).",
)

exclude_user_local_option = click.option(
    "--exclude-user-local",
    is_flag=True,
    help="For a workspace PATH, leave out JP's user-local storage of it "
    "(<data>/jp/workspace/<name>-<id>/conversations/).",
)


def jobs_option(what: str, *, default: int | None = 1) -> Callable[[F], F]:
    """`--jobs/-j N`: `what` says what runs in parallel (its help text)."""
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=default,
        metavar="N",
        show_default=default is not None,
        help=what if default is not None else f"{what}  [default: the config's, else 1]",
    )


def paths_argument(f: F) -> F:
    """`[PATH]...`: the command's function gets `.` when none is given."""
    return click.argument("paths", nargs=-1, metavar="[PATH]...", type=click.Path(path_type=Path))(
        f
    )


def given_paths(paths: tuple[Path, ...]) -> list[Path]:
    return list(paths) or [Path(".")]


def rule_options(f: F) -> F:
    """`--rule ID` (a shipped store rule) and `--rules DIR` (the store rules in DIR)."""
    f = click.option(
        "--rules",
        "rule_dirs",
        multiple=True,
        metavar="DIR",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        help="Enable the store rules in DIR (repeatable).",
    )(f)
    return click.option(
        "--rule",
        "rule_ids",
        multiple=True,
        metavar="ID",
        help="Enable a shipped opt-in store rule by its id (repeatable; "
        "`jp-migrate rules list` names them).",
    )(f)


def hidden_alias(name: str, param: str) -> Callable[[F], F]:
    """An old flag spelling that still works but is no longer shown in --help."""
    return click.option(name, param, is_flag=True, hidden=True)
