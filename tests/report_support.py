"""A report that exercises every section and status, for the report and CI tests."""

from __future__ import annotations

from jp_migrate.contract.report import Repair, Report, Site, StoreFile, ToolFile, VerifyCase

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
