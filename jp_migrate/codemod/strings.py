"""Legacy Outcomes held in strings: a JSON literal printed as is, or parsed with `json.loads`.

Rule `codemod-outcome-string`. These are never rewritten (a string's format
belongs to whoever wrote it); they are reported so the author can decide.
Docstrings and other statement-level strings are documentation, not output.
"""

from __future__ import annotations

import re

import libcst as cst

from jp_migrate.codemod.entries import literal_value
from jp_migrate.codemod.names import Names
from jp_migrate.codemod.scan import Scan
from jp_migrate.codemod.sites import OUTCOME_STRING, Finding

DESCRIPTION = "Outcomes written as strings, or parsed from them at runtime, are reported."

_OUTCOME_JSON = re.compile(r"""["']type["']\s*:\s*["'](success|error|needs_input)["']""")


def _text(node: cst.BaseString) -> str:
    if isinstance(node, cst.SimpleString):
        value: str | bytes | None = literal_value(node)
        return value if isinstance(value, str) else value.decode("utf-8", errors="replace")
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        if isinstance(value, str):
            return value
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
    if isinstance(node, cst.ConcatenatedString):
        return _text(node.left) + _text(node.right)
    if isinstance(node, cst.FormattedString):
        return "".join(p.value for p in node.parts if isinstance(p, cst.FormattedStringText))
    return ""


def string_findings(found: Scan, names: Names) -> list[Finding]:
    candidates = [
        s
        for s in found.strings
        if id(s) not in found.statement_strings and _OUTCOME_JSON.search(_text(s))
    ]
    if not candidates:
        return []
    first_args = {id(c.args[0].value): c for c, _ in found.calls if c.args}
    out: list[Finding] = []
    for node in candidates:
        tag = _OUTCOME_JSON.search(_text(node))
        assert tag is not None
        call = first_args.get(id(node))
        if call is not None and names.is_json_loads(call):
            reason = f"a legacy {tag.group(1)} Outcome parsed from a string at runtime"
        else:
            reason = f"a legacy {tag.group(1)} Outcome written as a string"
        out.append(Finding(node, OUTCOME_STRING, "unhandled", reason))
    return out
