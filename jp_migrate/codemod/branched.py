"""Key-by-key Outcomes whose keys are set in branches after one `out = {}` (form 2).

    out = {}
    try:
        ...
    except FileNotFoundError:
        out["type"] = "error"            → out["isError"] = True
        out["message"] = m               → out["content"] = [{"type": "text", "text": m}]
        out["trace"] = t                 → out["_meta"] = {"computer.jp/error": {"trace": t}}
        out["transient"] = False         → out["_meta"]["computer.jp/error"]["transient"] = False
    else:
        out["type"] = "success"          → (removed)
        out["content"] = text            → out["content"] = [{"type": "text", "text": text}]
    print(json.dumps(out))

Each branch (of `if`/`elif`/`else`, `try`/`except`/`else`/`finally`, `match`,
`with`) that sets `out["type"]` is one Outcome: it must set every key its tag
requires, as statements of that branch. Every statement is rewritten where it
stands, so nothing is evaluated in another order. Keys of `out` set anywhere
else after `out = {}` (outside such a branch, in a loop) are reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from jp_migrate.codemod import build
from jp_migrate.codemod.entries import const_str, dict_entries
from jp_migrate.codemod.mapping import (
    LEGACY_KEYS,
    META_KEYS,
    REQUIRED,
    TAGS,
    IsDictCall,
    Unhandled,
    not_a_string,
    question_content,
    shaped_like_dict_call,
)
from jp_migrate.codemod.sites import KEYED_DICT, Finding, Rebuild

_LOOPS = (cst.For, cst.While)


@dataclass(frozen=True)
class _Assign:
    line: cst.SimpleStatementLine
    target: cst.Subscript
    key: str
    value: cst.BaseExpression
    index: cst.BaseExpression  # the key as written (its quote is the rewrite's)


def _assign(statement: cst.BaseStatement, var: str) -> _Assign | None:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if not (
        isinstance(target, cst.Subscript)
        and isinstance(target.value, cst.Name)
        and target.value.value == var
        and len(target.slice) == 1
        and isinstance(target.slice[0].slice, cst.Index)
    ):
        return None
    key = const_str(target.slice[0].slice.value)
    index = target.slice[0].slice.value
    return None if key is None else _Assign(statement, target, key, small.value, index)


def _blocks(
    node: cst.CSTNode, looped: bool = False
) -> Iterator[tuple[Sequence[cst.BaseStatement], bool]]:
    """The statement blocks nested in a compound statement, in source order: (body, in a loop)."""
    looped = looped or isinstance(node, _LOOPS)
    for child in node.children:
        if isinstance(child, (cst.FunctionDef, cst.ClassDef)):
            continue  # another scope: its `out` is another variable
        if isinstance(child, cst.IndentedBlock):
            yield child.body, looped
            for statement in child.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    yield from _blocks(statement, looped)
        elif not isinstance(
            child, (cst.BaseExpression, cst.BaseSmallStatement, cst.SimpleStatementSuite)
        ):
            yield from _blocks(child, looped)


def branched_finding(
    var: str, init: cst.Dict, following: Sequence[cst.BaseStatement], is_dict_call: IsDictCall
) -> tuple[Finding | None, list[cst.Subscript]]:
    """The finding for `var = {}` followed by `following` (None: no branch sets a tag), and
    the `var[…]` targets it owns (rewrites or reports)."""
    groups: list[tuple[str, list[_Assign]]] = []
    loose: list[_Assign] = []
    for statement in following:
        if isinstance(statement, cst.SimpleStatementLine):
            continue  # same-block keys are the plain key-by-key transform's
        for body, looped in _blocks(statement):
            assigns = [a for a in (_assign(s, var) for s in body) if a is not None]
            tags = [a for a in assigns if a.key == "type"]
            if tags and not looped:
                groups.append((const_str(tags[0].value) or "", assigns))
            else:
                loose.extend(assigns)
    if not groups:
        return None, []
    owned = [a.target for _tag, assigns in groups for a in assigns] + [a.target for a in loose]
    anchor = next(a.target for _tag, assigns in groups for a in assigns if a.key == "type")
    quote = build.quote_of(next(a.index for _t, assigns in groups for a in assigns))
    try:
        if dict_entries(init):
            raise Unhandled(
                KEYED_DICT,
                f"`{var} = {{…}}` is not empty while branches set its keys: start from "
                f"`{var} = {{}}` and set every key in the branches",
            )
        if any(a.key in LEGACY_KEYS | {"type"} for a in loose):
            raise Unhandled(
                KEYED_DICT,
                f"a key of `{var}` is set outside the branch that sets its type (or in a loop): "
                "set every key of one Outcome in the branch that sets its type",
            )
        rewrites: list[tuple[cst.CSTNode, Rebuild]] = []
        for tag, assigns in groups:
            rewrites += _group_rewrites(var, tag, assigns, quote, is_dict_call)
    except Unhandled as exc:
        return Finding(anchor, exc.rule, "unhandled", exc.reason), owned
    tags = sorted({tag for tag, _ in groups})
    reason = f"{'/'.join(tags)} Outcome built key by key over branches → RFD 058 envelope"
    return Finding(anchor, KEYED_DICT, "rewritten", reason, tuple(rewrites), init), owned


def _group_rewrites(
    var: str, tag: str, assigns: list[_Assign], quote: str, is_dict_call: IsDictCall
) -> list[tuple[cst.CSTNode, Rebuild]]:
    if tag not in TAGS:
        raise Unhandled(KEYED_DICT, f'{var}["type"] is not "success", "error" or "needs_input"')
    keys = [a.key for a in assigns]
    if keys.count("type") > 1 or any(keys.count(k) > 1 for k in LEGACY_KEYS):
        raise Unhandled(KEYED_DICT, f"a key of `{var}` is set twice in one branch")
    missing = [k for k in REQUIRED[tag] if k not in keys]
    if missing:
        raise Unhandled(
            KEYED_DICT,
            f"incomplete {tag} Outcome in a branch: no {', '.join(repr(k) for k in missing)} "
            "(set every key of the Outcome in the branch that sets its type)",
        )
    clash = {"success": {"isError", "_meta"}}.get(tag, {"content", "isError", "_meta"})
    if set(keys) & clash:
        raise Unhandled(KEYED_DICT, f"key {min(set(keys) & clash)!r} would clash with the envelope")
    out: list[tuple[cst.CSTNode, Rebuild]] = []
    first_meta = next((a for a in assigns if a.key in META_KEYS), None)
    for a in assigns:
        if a.key in ("content", "message") and not_a_string(a.value):
            raise Unhandled(KEYED_DICT, f"{var}[{a.key!r}] is not a string: no Outcome for JP")
        if a.key == "question":
            question_content(a.value, quote, KEYED_DICT, is_dict_call)
        if a.key == "type" or a.key in LEGACY_KEYS:
            out.append((a.line, _statement(a, tag, quote, a is first_meta)))
    return out


def _statement(a: _Assign, tag: str, quote: str, opens_meta: bool) -> Rebuild:
    def key(name: str) -> list[cst.SubscriptElement]:
        return [cst.SubscriptElement(cst.Index(build.string(name, quote)))]

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode | cst.RemovalSentinel:
        assert isinstance(updated, cst.SimpleStatementLine)
        small = updated.body[0]
        assert isinstance(small, cst.Assign)
        target = small.targets[0].target
        assert isinstance(target, cst.Subscript)
        value: cst.BaseExpression
        if a.key == "type":
            if tag != "error":
                return cst.RemovalSentinel.REMOVE
            new_target, value = target.with_changes(slice=key("isError")), cst.Name("True")
        elif a.key in ("content", "message"):
            new_target = target.with_changes(slice=key("content"))
            value = build.text_blocks(small.value, quote)
        elif a.key in META_KEYS and opens_meta:
            new_target = target.with_changes(slice=key("_meta"))
            value = build.error_meta([(a.key, small.value)], quote)
        elif a.key in META_KEYS:
            meta = cst.Subscript(
                cst.Subscript(target.value, key("_meta")), key(build.ERROR_META_KEY)
            )
            new_target, value = target.with_changes(value=meta), small.value
        else:  # question
            new_target = target.with_changes(slice=key("content"))
            value = question_content(small.value, quote, KEYED_DICT, shaped_like_dict_call)
        assign = small.with_changes(
            targets=[small.targets[0].with_changes(target=new_target)], value=value
        )
        return updated.with_changes(body=[assign])

    return rewrite
