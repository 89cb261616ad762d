"""Code that reads a legacy Outcome's keys back: it would break once the Outcome is an envelope.

Rule `codemod-reads-legacy-keys`. Tracked in one file: variables assigned an
Outcome the codemod rewrites (or a call to a function of this file that
returns one), read with `x["content"]` / `x.get("message")`; and anywhere, a
`["type"]` compared with an Outcome tag (`res["type"] == "success"`).
"""

from __future__ import annotations

import libcst as cst

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.mapping import LEGACY_KEYS, TAGS
from jp_migrate.codemod.scan import Scan, Scope
from jp_migrate.codemod.sites import READS_LEGACY_KEYS, Finding

DESCRIPTION = "Code reading a legacy Outcome's keys back is reported."

_READ_KEYS = LEGACY_KEYS | {"type"}


def _called_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Name):
            return node.func.value
        if isinstance(node.func, cst.Attribute):
            return node.func.attr.value  # self.fail(...), helpers.success(...)
    return None


def _subscript_key(node: cst.Subscript) -> str | None:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return const_str(node.slice[0].slice.value)


def _get_key(node: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """`x.get("key", …)` → (x, "key")."""
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value == "get" and node.args:
        key = const_str(node.args[0].value)
        if key is not None:
            return func.value, key
    return None


def read_findings(
    found: Scan, outcomes: set[int], variables: dict[int, tuple[Scope, str]]
) -> list[Finding]:
    """`outcomes`: ids of nodes that build an envelope now; `variables`: key-by-key ones, by init id."""
    outcome_vars = {(id(scope), name) for scope, name in variables.values()}
    outcome_vars |= {
        (id(scope), name) for scope, name, value in found.assigns if id(value) in outcomes
    }
    helpers = {
        scope.name.value
        for scope, value in found.returns
        if isinstance(scope, cst.FunctionDef)
        and (
            id(value) in outcomes
            or (isinstance(value, cst.Name) and (id(scope), value.value) in outcome_vars)
        )
    }
    outcome_vars |= {
        (id(scope), name) for scope, name, value in found.assigns if _called_name(value) in helpers
    }

    def is_outcome(node: cst.BaseExpression, scope: Scope) -> str | None:
        if isinstance(node, cst.Name) and (id(scope), node.value) in outcome_vars:
            return f"`{node.value}`"
        name = _called_name(node)
        return f"`{name}(…)`" if name in helpers else None

    out: list[Finding] = []
    if outcome_vars or helpers:
        for sub, scope in found.subscripts:
            key = _subscript_key(sub)
            if key in _READ_KEYS and id(sub) not in found.stored:
                what = is_outcome(sub.value, scope)
                if what:
                    out.append(
                        Finding(
                            sub,
                            READS_LEGACY_KEYS,
                            "unhandled",
                            f"reads the legacy Outcome key {key!r} of {what}",
                        )
                    )
        for call, scope in found.calls:
            got = _get_key(call)
            if got is not None and got[1] in _READ_KEYS:
                what = is_outcome(got[0], scope)
                if what:
                    out.append(
                        Finding(
                            call,
                            READS_LEGACY_KEYS,
                            "unhandled",
                            f"reads the legacy Outcome key {got[1]!r} of {what}",
                        )
                    )
    for comparison in found.comparisons:
        operands = [comparison.left, *(t.comparator for t in comparison.comparisons)]
        if not any(const_str(o) in TAGS for o in operands):
            continue
        for operand in operands:
            if isinstance(operand, cst.Subscript) and _subscript_key(operand) == "type":
                anchor: cst.CSTNode = operand
            elif isinstance(operand, cst.Call) and (_get_key(operand) or (None, ""))[1] == "type":
                anchor = operand
            else:
                continue
            if not any(f.anchor is anchor for f in out):
                out.append(
                    Finding(
                        anchor,
                        READS_LEGACY_KEYS,
                        "unhandled",
                        'compares a legacy Outcome\'s "type" with a tag',
                    )
                )
    return out
