"""Outcomes whose keys are not string literals: `{TYPE: "success", CONTENT: x}`, `out[TYPE] = "error"`.

Rules `codemod-spread` (literals: a non-constant key) and `codemod-keyed-dict`
(`out[KEY] = tag`). The transforms read only keys written as strings, so
without this such an Outcome would be left in the legacy format without a
word. A tag under a key that is not a string is a site when the key is a name
bound to "type" at module level, or when it is unknown and reads like one
(`TYPE`, `Keys.TYPE`, `OUTCOME_TYPE`) or stands beside a legacy key. A
`{logging.ERROR: "error"}` table is none of these and is left alone.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.mapping import LEGACY_KEYS, TAGS
from jp_migrate.codemod.scan import Scan, dotted
from jp_migrate.codemod.sites import KEYED_DICT, SPREAD, Finding

DESCRIPTION = "Outcomes keyed by names (`{TYPE: …}`) instead of strings are reported."

Resolve = Callable[[cst.BaseExpression], str | None]


def _module_constants(found: Scan) -> dict[str, str | None]:
    """Module-level `NAME = "text"`; None for a name bound more than once to different things."""
    out: dict[str, str | None] = {}
    for scope, name, value in found.assigns:
        if isinstance(scope, cst.Module):
            text = const_str(value)
            out[name] = text if out.get(name, text) == text else None
    return out


def _resolver(found: Scan) -> Resolve:
    """A key's string: a literal's value, or a module constant's (computed on first use)."""
    constants: dict[str, str | None] | None = None

    def resolve(key: cst.BaseExpression) -> str | None:
        nonlocal constants
        literal = const_str(key)
        if literal is not None or not isinstance(key, cst.Name):
            return literal
        if constants is None:
            constants = _module_constants(found)
        return constants.get(key.value)

    return resolve


def _reads_like_type(key: cst.BaseExpression) -> bool:
    name = dotted(key)
    return name is not None and "type" in name.rsplit(".", 1)[-1].lower()


def _tag_key(key: cst.BaseExpression, resolve: Resolve, beside_legacy: bool) -> bool:
    """Whether a non-string `key` holding an Outcome tag may be the `"type"` key."""
    resolved = resolve(key)
    return resolved == "type" or (resolved is None and (beside_legacy or _reads_like_type(key)))


def _dict_finding(node: cst.Dict, resolve: Resolve) -> Finding | None:
    elements = [e for e in node.elements if isinstance(e, cst.DictElement)]
    if any(const_str(e.key) == "type" for e in elements):
        return None  # the literal transform's
    for element in elements:
        tag = const_str(element.value)
        if tag not in TAGS or const_str(element.key) is not None:
            continue
        others = [resolve(o.key) for o in elements if o is not element]
        legacy = bool(LEGACY_KEYS.intersection(others))
        unknown = None in others or len(elements) != len(node.elements)
        if _tag_key(element.key, resolve, legacy) and (legacy or unknown):
            reason = (
                f"{tag} Outcome with keys that are not string literals: not rewritten (write "
                "them as strings, or bind each name once to its string)"
            )
            return Finding(node, SPREAD, "unhandled", reason)
    return None


def _store_finding(
    target: cst.Subscript, value: cst.BaseExpression, resolve: Resolve
) -> Finding | None:
    tag = const_str(value)
    if (
        tag not in TAGS
        or len(target.slice) != 1
        or not isinstance(target.slice[0].slice, cst.Index)
    ):
        return None
    key = target.slice[0].slice.value
    if const_str(key) is not None or not _tag_key(key, resolve, False):
        return None
    reason = f"{tag} Outcome built with a key that is not a string literal: not rewritten"
    return Finding(target, KEYED_DICT, "unhandled", reason)


def constant_key_findings(found: Scan) -> list[Finding]:
    """Only dicts with a string value under a non-string key, and `x[k] = "…"`, are looked at."""
    resolve = _resolver(found)
    out: list[Finding] = []
    for node, _scope in found.dicts:
        if any(
            type(e) is cst.DictElement
            and type(e.value) is cst.SimpleString
            and type(e.key) is not cst.SimpleString
            for e in node.elements
        ):
            finding = _dict_finding(node, resolve)
            if finding is not None:
                out.append(finding)
    for target, value in found.stores:
        if type(value) is cst.SimpleString:
            finding = _store_finding(target, value, resolve)
            if finding is not None:
                out.append(finding)
    return out
