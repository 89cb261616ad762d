"""JUnit XML: one test case per store file, tool file and verify case; counts match the JSON totals.

A case fails when it should fail a CI gate: a file that would change in a dry
run, a tool with an unhandled site, a verify mismatch. Files and cases in
error are `<error>`, skipped files `<skipped>`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from jp_migrate.contract.report import Report, StoreFile, ToolFile, VerifyCase
from jp_migrate.report._text import case_label, plural
from jp_migrate.report.totals import has_problems, is_failure, normalize, notes

# Characters XML 1.0 cannot carry at all, even escaped (tool output can hold them).
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _file_case(report: Report, suite: str, f: StoreFile | ToolFile) -> ET.Element:
    case = ET.Element("testcase", {"classname": f"jp-migrate.{suite}", "name": xml_safe(f.path)})
    if has_problems(f):
        failure = ET.SubElement(
            case, "failure", {"message": "verify found problems", "type": "verify"}
        )
        failure.text = xml_safe(notes(f)) or None
    elif f.status == "error":
        ET.SubElement(case, "error", {"message": xml_safe(f.message or "error"), "type": "error"})
    elif f.status == "skipped":
        ET.SubElement(case, "skipped", {"message": xml_safe(f.message or "skipped")})
    elif is_failure(report, f):
        reasons = ["would migrate"] if f.status == "migrated" else []
        unhandled = (
            [s for s in f.sites if s.action == "unhandled"] if isinstance(f, ToolFile) else []
        )
        if unhandled:
            reasons.append(plural(len(unhandled), "unhandled site"))
        details = [
            f"{f.path}:{s.line}:{s.column}: {s.rule}" + (f": {s.reason}" if s.reason else "")
            for s in unhandled
        ]
        failure = ET.SubElement(
            case, "failure", {"message": ", ".join(reasons), "type": "migration"}
        )
        failure.text = xml_safe("\n".join([*details, f.diff or ""]).strip()) or None
    return case


def _verify_case(c: VerifyCase) -> ET.Element:
    case = ET.Element(
        "testcase", {"classname": "jp-migrate.verify", "name": xml_safe(case_label(c))}
    )
    if c.verdict == "error":
        ET.SubElement(case, "error", {"message": xml_safe(c.message or "error"), "type": "error"})
    elif c.verdict == "mismatch":
        failure = ET.SubElement(
            case, "failure", {"message": ", ".join(c.differences) or "mismatch", "type": "mismatch"}
        )
        failure.text = xml_safe(c.message) or None
    return case


def _suite(name: str, cases: Sequence[ET.Element]) -> ET.Element:
    suite = ET.Element("testsuite", {"name": f"jp-migrate.{name}"})
    counts = {"tests": len(cases), "failures": 0, "errors": 0, "skipped": 0}
    for case in cases:
        for kind, key in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            counts[key] += case.find(kind) is not None
        suite.append(case)
    for key, value in counts.items():
        suite.set(key, str(value))
    return suite


def render_junit(report: Report) -> str:
    report = normalize(report)
    root = ET.Element("testsuites", {"name": f"jp-migrate {report.command}"})
    if report.store is not None:
        root.append(_suite("store", [_file_case(report, "store", f) for f in report.store]))
    if report.tools is not None:
        root.append(_suite("tools", [_file_case(report, "tools", f) for f in report.tools]))
    if report.verify is not None:
        root.append(_suite("verify", [_verify_case(c) for c in report.verify]))
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(sum(int(s.get(key, "0")) for s in root)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
