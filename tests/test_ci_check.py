"""`jp-migrate check` in process: exit codes, reports, config and flags (stand-in codemod where needed)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from ci_support import (
    FakeToolsOptions,
    empty_workspace,
    fake_codemod,
    legacy_workspace,
    run_check,
)

from jp_migrate.contract.report import Site, ToolFile

SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[1] / "jp_migrate/contract/schemas/report.schema.json"
    ).read_text()
)


def clean(paths: list[Path], options: FakeToolsOptions) -> list[ToolFile]:
    return [ToolFile(path=str(p / "tool.py"), status="unchanged") for p in paths]


def would_change(paths: list[Path], options: FakeToolsOptions) -> list[ToolFile]:
    diff = "--- a\n+++ b\n-old\n+new\n" if options.diff else None
    return [ToolFile(path=str(p / "tool.py"), status="migrated", diff=diff) for p in paths]


def unhandled(paths: list[Path], options: FakeToolsOptions) -> list[ToolFile]:
    site = Site(
        line=3, column=5, rule="codemod-unhandled", action="unhandled", reason="dynamic Outcome"
    )
    return [ToolFile(path=str(p / "tool.py"), status="unchanged", sites=[site]) for p in paths]


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    return tmp_path


def test_nothing_to_migrate_exits_0(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty_workspace(in_tmp / "ws")
    calls = fake_codemod(monkeypatch, clean)
    code, out, err = run_check(capsys, "ws")
    assert (code, err) == (0, "")
    assert "1 file checked, 0 would change" in out
    assert calls[0][1].write is False  # a dry run: the codemod is told not to write


def test_a_legacy_store_exits_1_and_writes_nothing(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = legacy_workspace(in_tmp / "ws")
    before = {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()}
    fake_codemod(monkeypatch, clean)
    code, out, _ = run_check(capsys, "ws", "--report", "json")
    assert code == 1
    data = json.loads(out)
    assert data["totals"]["changed"] == 2 and data["exit_code"] == 1
    assert {p: p.read_bytes() for p in ws.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("answer", [would_change, unhandled])
def test_tool_changes_or_unhandled_sites_exit_1(
    answer, in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    empty_workspace(in_tmp / "ws")
    fake_codemod(monkeypatch, answer)
    assert run_check(capsys, "ws")[0] == 1


def test_a_file_in_error_exits_2_with_one_line_naming_it(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = legacy_workspace(in_tmp / "ws")
    broken = min((ws / ".jp" / "conversations").glob("*/events.json"))
    broken.write_text("[{", "utf-8")
    fake_codemod(monkeypatch, clean)
    code, _, err = run_check(capsys, "ws")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"error: ws/.jp/conversations/{broken.parent.name}/events.json: "
    )


def test_reports_to_files_are_valid_and_byte_identical_across_runs(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    legacy_workspace(in_tmp / "ws")
    fake_codemod(monkeypatch, would_change)
    outputs = []
    for run in ("a", "b"):
        specs = [f"{fmt}=out-{run}/r.{fmt}" for fmt in ("json", "markdown", "junit", "sarif")]
        code, out, _ = run_check(
            capsys, "ws", "--diff", *[x for s in specs for x in ("--report", s)]
        )
        assert code == 1 and out == ""
        outputs.append(
            {
                fmt: (in_tmp / f"out-{run}/r.{fmt}").read_bytes()
                for fmt in ("json", "markdown", "junit", "sarif")
            }
        )
    assert outputs[0] == outputs[1]
    data = json.loads(outputs[0]["json"])
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["tools"][0]["diff"] and all(
        f["diff"] for f in data["store"] if f["status"] == "migrated"
    )
    # paths are relative to the directory check ran from
    assert all(f["path"].startswith("ws/") for f in data["store"] + data["tools"])


def test_config_file_is_read_and_flags_override_it(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = legacy_workspace(in_tmp / "ws")
    (ws / "tools").mkdir()
    (ws / ".jp-migrate.toml").write_text(
        'tool-paths = ["tools"]\nexclude = ["a/**"]\nstore = false\nreport = ["json"]\n'
    )
    calls = fake_codemod(monkeypatch, clean)
    code, out, _ = run_check(capsys, "ws")
    assert code == 0 and json.loads(out)["store"] is None
    assert calls[-1][0] == [Path("ws/tools")] and calls[-1][1].exclude == ("a/**",)
    code, out, _ = run_check(capsys, "ws", "--exclude", "b/**", "--report", "markdown")
    assert calls[-1][1].exclude == ("b/**",) and out.startswith("## jp-migrate check")


def test_no_store_and_no_tools_flags(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    legacy_workspace(in_tmp / "ws")
    calls = fake_codemod(monkeypatch, would_change)
    code, out, _ = run_check(capsys, "ws", "--no-tools", "--report", "json")
    assert code == 1 and json.loads(out)["tools"] is None and not calls
    code, out, _ = run_check(capsys, "ws", "--no-store", "--report", "json")
    assert json.loads(out)["store"] is None and len(calls) == 1
    code, _, err = run_check(capsys, "ws", "--no-store", "--no-tools")
    assert code == 2 and "nothing to check" in err


def test_bad_config_exits_2_naming_file_and_key(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = empty_workspace(in_tmp / "ws")
    (ws / ".jp-migrate.toml").write_text("jobs = 'lots'\n")
    calls = fake_codemod(monkeypatch, clean)
    code, out, err = run_check(capsys, "ws")
    assert code == 2 and out == "" and not calls
    assert (
        err.strip()
        == f"error: {(ws / '.jp-migrate.toml').resolve()}: jobs: expected a whole number, got a string"
    )


def test_unknown_report_format_exits_2_before_any_work(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty_workspace(in_tmp / "ws")
    calls = fake_codemod(monkeypatch, clean)
    code, _, err = run_check(capsys, "ws", "--report", "yaml")
    assert code == 2 and "unknown report format 'yaml'" in err and not calls


def test_a_path_that_is_not_a_workspace_says_how_to_skip_the_store(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "src").mkdir()
    fake_codemod(monkeypatch, clean)
    code, _, err = run_check(capsys, "src")
    assert code == 2 and "store dry run:" in err and "--no-store" in err


def test_timings_only_on_request(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    empty_workspace(in_tmp / "ws")
    fake_codemod(monkeypatch, clean)
    assert "timings" not in json.loads(run_check(capsys, "ws", "--report", "json")[1])
    timed = json.loads(run_check(capsys, "ws", "--report", "json", "--timings")[1])
    assert set(timed["timings"]) == {"store", "tools"}


def test_a_single_tool_source_is_all_that_is_checked(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = legacy_workspace(in_tmp / "ws")
    (ws / "tool.py").write_text("print('hi')\n")
    calls = fake_codemod(monkeypatch, clean)
    code, out, _ = run_check(capsys, "ws/tool.py", "--report", "json")
    assert code == 0 and json.loads(out)["store"] is None
    assert calls[0][0] == [Path("ws/tool.py")]
