"""The report renderers: totals, JSON (schema, determinism), Markdown, terminal, emit_reports."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from report_support import sample_report

from jp_migrate.contract.report import Report, ToolFile
from jp_migrate.errors import JpMigrateError
from jp_migrate.report import compute_totals, emit_reports, parse_spec, render_report
from jp_migrate.report.markdown import DIFF_BUDGET

SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[1] / "jp_migrate/contract/schemas/report.schema.json"
    ).read_text("utf-8")
)


def test_totals_count_every_section() -> None:
    t = compute_totals(sample_report())
    assert (t.files, t.changed, t.unchanged, t.errors, t.skipped) == (7, 2, 2, 3, 1)
    assert (t.events_migrated, t.repairs, t.unhandled_sites) == (3, 2, 1)
    assert (t.cases, t.mismatches) == (4, 1)


def test_totals_of_an_empty_report_are_zero() -> None:
    assert compute_totals(Report(command="tools")).model_dump() == {
        k: 0 for k in compute_totals(Report(command="x")).model_dump()
    }


def test_json_validates_against_the_shipped_schema() -> None:
    data = json.loads(render_report(sample_report(), "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["totals"]["files"] == 7
    assert "timings" not in data


def test_json_carries_timings_only_when_recorded() -> None:
    report = sample_report().model_copy(update={"timings": {"tools": 0.25, "store": 1.5}})
    data = json.loads(render_report(report, "json"))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert list(data["timings"]) == ["store", "tools"]


def test_json_totals_are_recomputed_not_trusted() -> None:
    stale = sample_report().model_copy(update={"totals": compute_totals(Report(command="x"))})
    assert json.loads(render_report(stale, "json"))["totals"]["files"] == 7


@pytest.mark.parametrize("fmt", ["json", "markdown", "terminal"])
def test_same_findings_in_any_order_render_byte_identical(fmt: str) -> None:
    first = render_report(sample_report(), fmt, color=False)
    assert first == render_report(sample_report(), fmt, color=False)
    assert first == render_report(sample_report(reverse=True), fmt, color=False)


def test_json_lists_are_sorted() -> None:
    data = json.loads(render_report(sample_report(reverse=True), "json"))
    assert [f["path"] for f in data["store"]] == sorted(f["path"] for f in data["store"])
    assert [c["index"] for c in data["verify"]] == [0, 1, 2, 3]
    assert [f["path"] for f in data["tools"]] == [
        "tools/broken.py",
        "tools/clean.py",
        "tools/fs | read.py",
    ]
    assert [s["line"] for s in data["tools"][2]["sites"]] == [3, 14]
    assert [r["event_index"] for r in data["store"][0]["repairs"]] == [2, 7]


def test_markdown_has_totals_a_table_per_capability_and_collapsed_diffs() -> None:
    md = render_report(sample_report(), "markdown")
    assert md.startswith("## jp-migrate check (dry run)\n")
    assert "| Files | 7 |" in md
    for heading in (
        "### Conversation stores",
        "### Tool sources",
        "### Verification (before vs after)",
    ):
        assert heading in md
    assert (
        "| `.jp/conversations/17-hello/events.json` | would migrate | 3/12 | 2 | store-faithful-text |  |"
        in md
    )
    # pipes and angle brackets in paths and reasons cannot break the table
    assert (
        "| `tools/fs \\| read.py:14:5` | `codemod-outcome-dynamic` | Outcome built from a variable &lt;x&gt; |"
        in md
    )
    assert md.count("<details>") == 2 and md.count("</details>") == 2
    assert "```diff\n--- a/tool.py\n" in md


def test_markdown_drops_diffs_past_the_comment_budget_but_keeps_tables() -> None:
    big = "+" + "x" * (DIFF_BUDGET // 2) + "\n"
    tools = [ToolFile(path=f"t{i}.py", status="migrated", diff=big) for i in range(4)]
    md = render_report(Report(command="tools", dry_run=True, tools=tools), "markdown")
    assert md.count("<details>") == 1
    assert "3 more diff(s) omitted" in md
    assert all(f"| `t{i}.py` |" in md for i in range(4))
    assert len(md) < 65_536


def test_markdown_fences_survive_backticks_in_a_diff() -> None:
    tools = [ToolFile(path="t.py", status="migrated", diff=" ````\n-x\n+y\n")]
    md = render_report(Report(command="tools", tools=tools), "markdown")
    assert "`````diff\n" in md


def test_terminal_without_color_has_no_escape_codes() -> None:
    text = render_report(sample_report(), "terminal", color=False)
    assert "\x1b[" not in text
    assert "tools/fs | read.py:14:5 codemod-outcome-dynamic" in text
    assert "7 files checked, 2 would change, 3 errors, 1 unhandled site" in text


def test_terminal_with_color_has_escape_codes() -> None:
    assert "\x1b[" in render_report(sample_report(), "terminal", color=True)


def test_terminal_respects_no_color_even_on_a_tty(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    from jp_migrate.report.terminal import wants_color

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert wants_color(Tty()) is True  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert wants_color(Tty()) is False  # type: ignore[arg-type]


def test_emit_reports_writes_files_and_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = sample_report()
    emit_reports(report, ["json", f"markdown={tmp_path / 'out' / 'summary.md'}", "json=-"])
    out = capsys.readouterr().out
    assert out == render_report(report, "json") * 2
    assert (tmp_path / "out" / "summary.md").read_text("utf-8") == render_report(report, "markdown")


def test_emit_reports_to_a_non_terminal_stdout_is_plain(capsys: pytest.CaptureFixture[str]) -> None:
    emit_reports(sample_report(), ["terminal"])
    assert "\x1b[" not in capsys.readouterr().out


def test_unknown_format_is_an_error_naming_it_and_nothing_is_written(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    with pytest.raises(JpMigrateError, match="unknown report format 'yaml'"):
        emit_reports(sample_report(), [f"json={target}", "yaml"])
    assert not target.exists()
    with pytest.raises(JpMigrateError, match="unknown report format 'xml'"):
        render_report(sample_report(), "xml")


def test_spec_parsing() -> None:
    assert parse_spec("json").target == "-"
    assert parse_spec("json=-").target == "-"
    assert parse_spec("markdown=a=b.md").target == "a=b.md"
    with pytest.raises(JpMigrateError, match="missing file name"):
        parse_spec("json=")


def test_unwritable_target_is_one_error_naming_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(JpMigrateError, match=r"cannot write json report"):
        emit_reports(sample_report(), [f"json={blocker / 'r.json'}"])


def test_terminal_lists_large_sections_as_lines_without_the_quiet_rows() -> None:
    from jp_migrate.contract.report import StoreFile
    from jp_migrate.report.terminal import TABLE_LIMIT

    store = [
        StoreFile(
            path=f"c{i:04d}/events.json",
            conversation=f"c{i:04d}",
            status="migrated" if i % 2 else "unchanged",
            events_total=4,
            events_migrated=1 if i % 2 else 0,
        )
        for i in range(TABLE_LIMIT + 2)
    ]
    text = render_report(
        Report(command="check", dry_run=True, store=store), "terminal", color=False
    )
    assert "┃" not in text  # no table
    assert "would migrate c0001/events.json  (events 1/4)" in text
    assert "c0002/events.json" not in text
    assert f"… and {(TABLE_LIMIT + 2) // 2} unchanged" in text


def test_markdown_tables_stay_comment_sized_and_keep_what_matters() -> None:
    from jp_migrate.contract.report import StoreFile
    from jp_migrate.report.markdown import ROW_LIMIT

    store = [
        StoreFile(path=f"c{i:05d}/events.json", conversation=f"c{i:05d}", status="unchanged")
        for i in range(3000)
    ] + [StoreFile(path="z/events.json", conversation="z", status="error", message="not JSON")]
    md = render_report(Report(command="check", dry_run=True, store=store), "markdown")
    assert "| `z/events.json` | error |" in md
    assert "c00000/events.json" not in md
    assert "3000 more rows not shown" in md
    assert len(md) < 65_536
    small = render_report(Report(command="check", store=store[:ROW_LIMIT]), "markdown")
    assert "c00000/events.json" in small and "not shown" not in small


def test_markdown_code_spans_show_a_path_as_it_is() -> None:
    """Inside a code span entities are not decoded: `<&>` must not become `&lt;&amp;&gt;`."""
    from jp_migrate.report.markdown import cell, code

    assert code('rf/dyn <&>"x.py') == '`rf/dyn <&>"x.py`'
    assert code("a|b") == "`a\\|b`"  # still one table cell
    assert cell("a <b> & c") == "a &lt;b&gt; &amp; c"  # outside code, HTML stays inert
