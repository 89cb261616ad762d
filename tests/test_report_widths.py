"""The terminal report at 40, 60 and 120 columns: readable tables from 60 up, one line per file below."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from jp_migrate.contract.report import Report, StoreFile
from jp_migrate.report import compute_totals
from jp_migrate.report.terminal import render_terminal, wrap_path

# Names as JP writes them (tests/data/corpus), under a workspace's .jp/.
NAMES = (
    "17462040864",
    "17673061097-jp-conversation-storage-transfer-bug",
    "17727484633-preventing-rfd-summary-regeneration-churn",
)


def store_report(base: str, message: str = "") -> Report:
    files = [
        StoreFile(
            path=os.path.join(base, ".jp", "conversations", name, "events.json"),
            conversation=name,
            status="migrated" if n else "unchanged",
            events_total=10,
            events_migrated=n,
            message=message if n == 1 else "",
        )
        for n, name in enumerate(NAMES)
    ]
    report = Report(command="conversations", dry_run=True, exit_code=1, store=files)
    report.totals = compute_totals(report)
    return report


def test_below_60_columns_each_file_is_one_line() -> None:
    text = render_terminal(store_report("ws"), color=False, width=40)
    lines = text.splitlines()
    assert lines[0] == "Conversation stores"
    assert lines[1:4] == [
        f"{'unchanged':<13} ws/.jp/conversations/{NAMES[0]}/events.json  (events 0/10)",
        f"would migrate ws/.jp/conversations/{NAMES[1]}/events.json  (events 1/10)",
        f"would migrate ws/.jp/conversations/{NAMES[2]}/events.json  (events 2/10)",
    ]
    assert lines[4:] == ["jp-migrate conversations: 3 files checked, 2 would change"]


@pytest.mark.parametrize("width", [60, 80, 120])
def test_from_60_columns_a_table_that_fits_with_no_empty_column(width: int) -> None:
    text = render_terminal(store_report("ws"), color=False, width=width)
    lines = text.splitlines()
    assert all(len(line.rstrip()) <= width for line in lines), text
    header = next(line for line in lines if "File" in line)
    assert "Status" in header and "Events" in header
    assert "Repairs" not in header and "Message" not in header  # nothing in them


def test_at_120_columns_no_path_is_broken() -> None:
    text = render_terminal(store_report("ws"), color=False, width=120)
    for name in NAMES:
        assert f"ws/.jp/conversations/{name}/events.json" in text


def test_at_80_columns_a_name_is_broken_only_when_it_is_wider_than_the_column() -> None:
    text = render_terminal(store_report("ws"), color=False, width=80)
    assert f"{NAMES[1]}/" in text  # 49 characters fit beside Status and Events
    assert NAMES[2] not in text  # 54 do not: the name itself is broken (docs/store.md)
    cells = "".join(
        line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")
    )
    assert f"ws/.jp/conversations/{NAMES[2]}/events.json" in cells


def test_a_column_with_something_in_it_is_shown_and_wraps_at_its_spaces() -> None:
    message = "a leftover temporary of an interrupted run was removed"
    text = render_terminal(store_report("ws", message), color=False, width=120)
    header = next(line for line in text.splitlines() if "File" in line)
    assert "Message" in header
    assert all(len(line.rstrip()) <= 120 for line in text.splitlines())
    for name in NAMES:  # the path may be broken after a slash, never inside a name
        assert f"{name}/" in text
    cells = " ".join(
        line.split("│")[-2].strip() for line in text.splitlines() if line.startswith("│")
    )
    assert " ".join(cells.split()) == message  # broken between words only


def test_paths_inside_the_working_directory_are_shown_relative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    text = render_terminal(store_report(str(tmp_path / "ws")), color=False, width=120)
    assert str(tmp_path) not in text
    assert f"ws/.jp/conversations/{NAMES[2]}/events.json" in text
    outside = render_terminal(store_report("/elsewhere"), color=False, width=120)
    assert f"/elsewhere/.jp/conversations/{NAMES[0]}/events.json" in outside


@pytest.mark.parametrize(
    ("path", "width", "lines"),
    [
        ("a/bb/ccc", 8, ["a/bb/ccc"]),
        ("a/bb/ccc", 5, ["a/bb/", "ccc"]),
        ("aaaaaaa/b", 4, ["aaaa", "aaa/", "b"]),  # a name wider than the column is folded
    ],
)
def test_wrap_path_breaks_after_a_slash(path: str, width: int, lines: list[str]) -> None:
    assert wrap_path(path, width).split("\n") == lines


def test_a_verify_report_gives_its_message_room_and_speaks_only_of_cases() -> None:
    from jp_migrate.contract.report import VerifyCase

    case = VerifyCase(
        index=1,
        verdict="mismatch",
        differences=["content"],
        message="content: 'Hello, Ada!' → 'Hi, Ada!'",
        inputs={
            "case": "/tmp/pytest-of-someone/pytest-1/test_a_long_name0/ws/cases.jsonl:1 (greet)"
        },
    )
    report = Report(command="verify", exit_code=1, verify=[case])
    report.totals = compute_totals(report)
    text = render_terminal(report, color=False, width=100)
    assert "content: 'Hello, Ada!' → 'Hi, Ada!'" in text  # on one line
    assert text.splitlines()[-1] == "jp-migrate verify: 1 verify case, 1 mismatch"
