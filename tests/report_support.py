"""A report that exercises every section and status, for the report and CI tests."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema

from jp_migrate.contract.report import Repair, Report, Site, StoreFile, ToolFile, VerifyCase

REPORT_SCHEMA: dict[str, Any] = json.loads(
    (
        Path(__file__).resolve().parents[1] / "jp_migrate/contract/schemas/report.schema.json"
    ).read_text("utf-8")
)

DIFF = "--- a/tool.py\n+++ b/tool.py\n@@ -1 +1 @@\n-print(json.dumps({'type': 'success'}))\n+print(json.dumps({'content': []}))\n"


def sample_report(*, dry_run: bool = True, reverse: bool = False) -> Report:
    store = [
        StoreFile(
            path=".jp/conversations/17-hello/events.json",
            conversation="17-hello",
            status="migrated",
            events_total=12,
            events_migrated=3,
            repairs=[
                Repair(event_index=7, event_id="call_b", field="content", kind="urlsafe-base64"),
                Repair(event_index=2, event_id="call_a", field="content", kind="urlsafe-base64"),
            ],
            rules=["store-faithful-text"],
            diff='--- events.json\n+++ events.json\n@@ -3 +3 @@\n-  "content": "aGk=",\n+  "content": [],\n',
        ),
        StoreFile(
            path=".jp/conversations/18-done/events.json",
            conversation="18-done",
            status="unchanged",
            events_total=4,
        ),
        StoreFile(
            path=".jp/conversations/19-bad/events.json",
            conversation="19-bad",
            status="error",
            message="not valid JSON: line 1 column 2",
        ),
        StoreFile(
            path=".jp/conversations/20-locked/events.json",
            conversation="20-locked",
            status="skipped",
            message="locked",
        ),
    ]
    tools = [
        ToolFile(
            path="tools/fs | read.py",
            status="migrated",
            sites=[
                Site(
                    line=14,
                    column=5,
                    rule="codemod-outcome-dynamic",
                    action="unhandled",
                    reason="Outcome built from a variable <x>",
                ),
                Site(line=3, column=11, rule="codemod-outcome-success", action="rewritten"),
            ],
            diff=DIFF,
        ),
        ToolFile(path="tools/clean.py", status="unchanged"),
        ToolFile(path="tools/broken.py", status="error", message="syntax error at line 2"),
    ]
    verify = [
        VerifyCase(
            index=2, verdict="mismatch", differences=["text", "is_error"], inputs={"path": "a.txt"}
        ),
        VerifyCase(index=0, verdict="match"),
        VerifyCase(index=1, verdict="expected", differences=["non-transient-error-text"]),
        VerifyCase(index=3, verdict="error", message="tool timed out after 10s"),
    ]
    if reverse:
        store.reverse()
        tools.reverse()
        verify.reverse()
    return Report(
        command="check", dry_run=dry_run, exit_code=1, store=store, tools=tools, verify=verify
    )


# The SARIF 2.1.0 schema (a strict subset of the official OASIS file; provenance inside).
SARIF_SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "sarif-schema-2.1.0.subset.json").read_text("utf-8")
)


def validate_sarif(text: str) -> dict[str, Any]:
    log = json.loads(text)
    jsonschema.Draft4Validator(SARIF_SCHEMA, format_checker=jsonschema.FormatChecker()).validate(
        log
    )
    return log


def junit_counts(text: str) -> dict[str, int]:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    counted = {k: int(root.get(k, "-1")) for k in ("tests", "failures", "errors", "skipped")}
    # the attributes agree with the elements they summarize
    assert counted == {
        "tests": len(cases),
        "failures": sum(c.find("failure") is not None for c in cases),
        "errors": sum(c.find("error") is not None for c in cases),
        "skipped": sum(c.find("skipped") is not None for c in cases),
    }
    return counted


def expected_from_json(data: dict[str, Any]) -> dict[str, int]:
    """What JUnit must count, derived from the JSON report alone."""
    files = [*(data["store"] or []), *(data["tools"] or [])]
    failing = [
        f
        for f in files
        if f.get("problems")
        or (
            f["status"] not in ("error", "skipped")
            and (
                (data["dry_run"] and f["status"] == "migrated")
                or any(s["action"] == "unhandled" for s in f.get("sites", []))
            )
        )
    ]
    t = data["totals"]
    return {
        "tests": t["files"] + t["cases"],
        "failures": len(failing) + t["mismatches"],
        "errors": t["errors"],
        "skipped": t["skipped"],
    }
