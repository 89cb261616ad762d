"""JUnit and SARIF: they parse/validate, and their counts agree with the JSON report."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from report_support import expected_from_json, junit_counts, sample_report, validate_sarif

from jp_migrate.codemod import ToolsOptions, migrate_tools
from jp_migrate.contract.report import Report, Site, StoreFile, ToolFile, VerifyCase
from jp_migrate.report import render_report
from jp_migrate.rules import rule_descriptions


@pytest.mark.parametrize("dry_run", [True, False])
def test_junit_parses_and_its_counts_match_the_json_report(dry_run: bool) -> None:
    report = sample_report(dry_run=dry_run)
    data = json.loads(render_report(report, "json"))
    assert junit_counts(render_report(report, "junit")) == expected_from_json(data)


def test_store_verify_problems_are_failures_not_errors() -> None:
    report = Report(
        command="conversations",
        store=[
            StoreFile(
                path="a/events.json",
                conversation="a",
                status="error",
                problems=["event 3: not migrated"],
            ),
            StoreFile(
                path="b/events.json",
                conversation="b",
                status="unchanged",
                warnings=["odd timestamp"],
            ),
        ],
    )
    data = json.loads(render_report(report, "json"))
    assert (data["totals"]["problems"], data["totals"]["errors"]) == (1, 0)
    assert (
        junit_counts(render_report(report, "junit"))
        == expected_from_json(data)
        == {
            "tests": 2,
            "failures": 1,
            "errors": 0,
            "skipped": 0,
        }
    )
    md = render_report(report, "markdown")
    assert "event 3: not migrated" in md and "warning: odd timestamp" in md


def test_junit_has_one_case_per_file_and_verify_case_in_a_suite_per_capability() -> None:
    root = ET.fromstring(render_report(sample_report(), "junit"))
    suites = {s.get("name"): [c.get("name") for c in s] for s in root}
    assert set(suites) == {"jp-migrate.store", "jp-migrate.tools", "jp-migrate.verify"}
    assert suites["jp-migrate.verify"] == ["case 0", "case 1", "case 2", "case 3"]
    assert "tools/fs | read.py" in suites["jp-migrate.tools"]


def test_a_real_run_that_migrated_files_does_not_fail_them() -> None:
    report = Report(command="tools", tools=[ToolFile(path="a.py", status="migrated")])
    assert junit_counts(render_report(report, "junit"))["failures"] == 0
    dry = report.model_copy(update={"dry_run": True})
    assert junit_counts(render_report(dry, "junit"))["failures"] == 1


def test_junit_survives_control_characters_in_tool_output() -> None:
    report = Report(
        command="verify", verify=[VerifyCase(index=0, verdict="error", message="bad\x00\x1b[31m")]
    )
    root = ET.fromstring(render_report(report, "junit"))
    assert root.find(".//error").get("message") == "bad\ufffd\ufffd[31m"  # type: ignore[union-attr]


def test_sarif_validates_and_reports_unhandled_sites_and_errors() -> None:
    log = validate_sarif(render_report(sample_report(), "sarif"))
    run = log["runs"][0]
    results = run["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert set(by_rule) == {"store-error", "tool-error", "codemod-outcome-dynamic"}
    site = by_rule["codemod-outcome-dynamic"]["locations"][0]["physicalLocation"]
    assert site["artifactLocation"] == {"uri": "tools/fs%20%7C%20read.py", "uriBaseId": "%SRCROOT%"}
    assert site["region"] == {"startLine": 14, "startColumn": 5}
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == sorted(by_rule)
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    # the count of results follows the JSON totals: one per unhandled site, one per file in error
    files_in_error = sum(
        f.status == "error" for f in [*sample_report().store, *sample_report().tools]
    )  # type: ignore[misc]
    t = json.loads(render_report(sample_report(), "json"))["totals"]
    assert len(results) == t["unhandled_sites"] + files_in_error


def test_sarif_uris_are_relative_references_or_file_uris() -> None:
    report = Report(
        command="check",
        store=[
            StoreFile(path="/abs/p q/events.json", conversation="c", status="error", message="x")
        ],
        tools=[
            ToolFile(
                path="./tools/ü.py",
                status="unchanged",
                sites=[Site(line=0, column=0, rule="r", action="unhandled")],
            )
        ],
    )
    log = validate_sarif(render_report(report, "sarif"))
    locations = [r["locations"][0]["physicalLocation"] for r in log["runs"][0]["results"]]
    uris = [loc["artifactLocation"]["uri"] for loc in locations]
    assert uris == ["file:///abs/p%20q/events.json", "tools/%C3%BC.py"]
    assert all(urlsplit(u).scheme in ("", "file") for u in uris)
    assert locations[1]["region"] == {"startLine": 1, "startColumn": 1}


def test_sarif_of_a_clean_run_has_no_results_and_still_validates() -> None:
    log = validate_sarif(render_report(Report(command="check", store=[], tools=[]), "sarif"))
    assert log["runs"][0]["results"] == [] and log["runs"][0]["tool"]["driver"]["rules"] == []


def test_sarif_rule_descriptions_are_the_ones_it_is_given() -> None:
    report = Report(
        command="tools",
        tools=[
            ToolFile(
                path="a.py",
                status="unchanged",
                sites=[Site(line=1, column=1, rule="store-faithful-text", action="unhandled")],
            )
        ],
    )
    shipped = render_report(report, "sarif", rules=rule_descriptions())
    rules = json.loads(shipped)["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["shortDescription"]["text"].startswith("A legacy tool_call_response")
    own = render_report(report, "sarif", rules={"store-faithful-text": "Mine."})
    assert json.loads(own)["runs"][0]["tool"]["driver"]["rules"][0]["shortDescription"] == {
        "text": "Mine."
    }


@pytest.mark.parametrize("fmt", ["junit", "sarif"])
def test_junit_and_sarif_are_deterministic(fmt: str) -> None:
    assert render_report(sample_report(), fmt) == render_report(sample_report(reverse=True), fmt)


def test_sarif_anchors_a_syntax_error_at_its_position() -> None:
    report = Report(
        command="tools",
        tools=[
            ToolFile(
                path="a.py",
                status="error",
                message="syntax error: invalid syntax",
                line=4,
                column=5,
            ),
            ToolFile(path="b.py", status="error", message="cannot read: Permission denied"),
            # a position in the text is not read back out of it
            ToolFile(path="c.py", status="error", message="7:8: not a position field"),
        ],
    )
    results = validate_sarif(render_report(report, "sarif"))["runs"][0]["results"]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert regions == [{"startLine": 4, "startColumn": 5}, {"startLine": 1}, {"startLine": 1}]


def test_a_syntax_error_s_position_reaches_sarif_from_the_codemod(tmp_path: Path) -> None:
    source = tmp_path / "broken.py"
    source.write_text('print("a"\nx = (\n', "utf-8")
    files = migrate_tools([source], ToolsOptions(write=False))
    assert (files[0].status, files[0].line, files[0].column) == ("error", 1, 7)
    assert (
        json.loads(render_report(Report(command="tools", tools=files), "json"))["tools"][0]["line"]
        == 1
    )
    result = json.loads(render_report(Report(command="tools", tools=files), "sarif"))
    region = result["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 1, "startColumn": 7}  # as the message says: 1:7
