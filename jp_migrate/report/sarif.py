"""SARIF 2.1.0 for code scanning: unhandled codemod sites, and store and tool files in error.

One run, tool `jp-migrate`; one rule descriptor per rule id that has a result.
Locations are URIs relative to the run root (`%SRCROOT%`), which is what the
report's paths already are, so uploads from any checkout line up.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from jp_migrate import __version__
from jp_migrate.contract.report import Report
from jp_migrate.report.totals import normalize

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"
STORE_ERROR = "store-error"
TOOL_ERROR = "tool-error"

_BUILTIN_RULES: dict[str, str] = {
    STORE_ERROR: "A conversation store file could not be read or migrated.",
    TOOL_ERROR: "A tool source could not be parsed or rewritten.",
}
_UNHANDLED = "The codemod found a legacy Outcome it cannot rewrite safely; migrate it by hand."


def artifact_uri(path: str) -> dict[str, str]:
    """A SARIF artifactLocation: relative paths against %SRCROOT%, absolute ones as file URIs."""
    if PurePosixPath(path).is_absolute():
        return {"uri": PurePosixPath(path).as_uri()}
    posix = PureWindowsPath(path).as_posix() if "\\" in path else path
    return {"uri": quote(posix.removeprefix("./"), safe="/"), "uriBaseId": SRCROOT}


def _result(
    rule: str, level: str, text: str, path: str, line: int, column: int | None
) -> dict[str, Any]:
    region: dict[str, int] = {"startLine": max(1, line)}
    if column is not None:
        region["startColumn"] = max(1, column)
    return {
        "ruleId": rule,
        "level": level,
        "message": {"text": text},
        "locations": [
            {"physicalLocation": {"artifactLocation": artifact_uri(path), "region": region}}
        ],
    }


def sarif_results(report: Report) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = []
    for f in report.store or []:
        if f.status == "error":
            # A store error concerns the whole file: it is anchored at line 1.
            results.append(
                _result(STORE_ERROR, "error", f.message or "store file in error", f.path, 1, None)
            )
    for t in report.tools or []:
        if t.status == "error":
            # A syntax error is anchored at its position, any other error at line 1.
            results.append(
                _result(
                    TOOL_ERROR,
                    "error",
                    t.message or "tool source in error",
                    t.path,
                    t.line or 1,
                    t.column or None,
                )
            )
        for s in t.sites:
            if s.action == "unhandled":
                text = s.reason or _UNHANDLED
                # Site columns are 1-based, as SARIF's are (see contract/report.py `Site`).
                results.append(_result(s.rule, "warning", text, t.path, s.line, s.column))
    return results


def _rule(rule_id: str, level: str, descriptions: Mapping[str, str]) -> dict[str, Any]:
    text = descriptions.get(rule_id) or _BUILTIN_RULES.get(rule_id) or _UNHANDLED
    return {
        "id": rule_id,
        "shortDescription": {"text": text},
        "defaultConfiguration": {"level": level},
    }


def render_sarif(report: Report, *, rules: Mapping[str, str] | None = None) -> str:
    """The SARIF log as pretty JSON; `rules` maps rule ids to their one-line description."""
    results = sarif_results(normalize(report))
    levels = {r["ruleId"]: r["level"] for r in results}
    descriptors = [_rule(rule_id, levels[rule_id], rules or {}) for rule_id in sorted(levels)]
    index = {rule["id"]: i for i, rule in enumerate(descriptors)}
    for r in results:
        r["ruleIndex"] = index[r["ruleId"]]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {"name": "jp-migrate", "version": __version__, "rules": descriptors}
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
