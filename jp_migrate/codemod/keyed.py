"""Outcomes built up key by key: `out = {}`, `out["type"] = "success"`, `out["content"] = x`.

Rule `codemod-keyed-dict`. The keys must be constants and every assignment a
statement of its own in the same block as the `out = {…}` that starts it;
anything else is reported. Each statement is rewritten where it stands, so
the order of evaluation does not change:

    out["type"] = "error"        → out["isError"] = True
    out["message"] = m           → out["content"] = [{"type": "text", "text": m}]
    out["trace"] = t             → out["_meta"]["computer.jp/error"]["trace"] = t
    out["question"] = {…}        → out["content"] = [text(pre_amble)?, question]
and `out = {}` gains `"_meta": {"computer.jp/error": {}}` when trace/transient come later.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from jp_migrate.codemod import build
from jp_migrate.codemod.branched import branched_finding
from jp_migrate.codemod.entries import (
    NewEntry,
    const_str,
    dict_entries,
    rebuild,
    subscript_key,
)
from jp_migrate.codemod.mapping import (
    LEGACY_KEYS,
    META_KEYS,
    REQUIRED,
    TAGS,
    IsDictCall,
    Unhandled,
    could_be_outcome,
    envelope_entries,
    not_a_string,
    question_content,
    shaped_like_dict_call,
)
from jp_migrate.codemod.scan import Scan, Scope
from jp_migrate.codemod.sites import DYNAMIC_TYPE, KEYED_DICT, SPREAD, Finding, Rebuild

DESCRIPTION = "Outcomes built key by key in one block are rewritten statement by statement."


@dataclass(frozen=True)
class KeyAssign:
    line: cst.SimpleStatementLine
    target: cst.Subscript
    var: str
    key: str
    value: cst.BaseExpression


def key_assign(statement: cst.BaseStatement) -> KeyAssign | None:
    """`var["const"] = value`, alone on its line."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return None
    target = small.targets[0].target
    if not (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name)):
        return None
    key = subscript_key(target)
    if key is None:
        return None
    return KeyAssign(statement, target, target.value.value, key, small.value)


def _init(statement: cst.BaseStatement, var: str) -> cst.BaseExpression | None:
    """The value of `var = …` / `var: T = …` when the statement is one, else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and any(
        isinstance(t.target, cst.Name) and t.target.value == var for t in small.targets
    ):
        return small.value
    if (
        isinstance(small, cst.AnnAssign)
        and isinstance(small.target, cst.Name)
        and small.target.value == var
    ):
        return small.value
    return None


def _key(name: str, quote: str) -> list[cst.SubscriptElement]:
    return [cst.SubscriptElement(cst.Index(build.string(name, quote)))]


def _rewrite_statement(
    assign: KeyAssign, tag: str, quote: str, is_dict_call: IsDictCall
) -> Rebuild:
    def rewrite(updated: cst.CSTNode) -> cst.CSTNode | cst.RemovalSentinel:
        assert isinstance(updated, cst.SimpleStatementLine)
        small = updated.body[0]
        assert isinstance(small, cst.Assign)
        target = small.targets[0].target
        assert isinstance(target, cst.Subscript)
        if assign.key == "type":
            if tag != "error":
                return cst.RemovalSentinel.REMOVE
            new_target, value = target.with_changes(slice=_key("isError", quote)), cst.Name("True")
        elif assign.key in ("content", "message"):
            new_target, value = (
                target.with_changes(slice=_key("content", quote)),
                build.text_blocks(small.value, quote),
            )
        elif assign.key in META_KEYS:
            meta = cst.Subscript(
                cst.Subscript(target.value, _key("_meta", quote)), _key(build.ERROR_META_KEY, quote)
            )
            new_target, value = target.with_changes(value=meta), small.value
        else:  # question
            new_target = target.with_changes(slice=_key("content", quote))
            value = question_content(small.value, quote, KEYED_DICT, shaped_like_dict_call)
        assign_node = small.with_changes(
            targets=[small.targets[0].with_changes(target=new_target)], value=value
        )
        return updated.with_changes(body=[assign_node])

    return rewrite


def _init_var(statement: cst.BaseStatement) -> tuple[str, cst.Dict] | None:
    """`var = {…}` / `var: T = {…}` alone on its line."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
    elif isinstance(small, cst.AnnAssign):
        target, value = small.target, small.value
    else:
        return None
    if isinstance(target, cst.Name) and isinstance(value, cst.Dict):
        return target.value, value
    return None


def _group(
    init: cst.Dict,
    members: list[KeyAssign],
    tag: str,
    anchor: cst.CSTNode,
    quote: str,
    is_dict_call: IsDictCall,
) -> Finding:
    var = members[0].var if members else "out"
    init_entries = dict_entries(init)
    try:
        if any(e.key is None for e in init_entries):
            raise Unhandled(SPREAD, f"`**` spread or non-constant key in `{var} = {{…}}`")
        keys = [e.key for e in init_entries] + [m.key for m in members]
        if keys.count("type") > 1:
            raise Unhandled(KEYED_DICT, f'{var}["type"] is set more than once')
        missing = [k for k in REQUIRED[tag] if k not in keys]
        if missing:
            raise Unhandled(
                KEYED_DICT,
                f"incomplete {tag} Outcome: no {', '.join(repr(k) for k in missing)} in this block",
            )
        meta_later = tag == "error" and any(m.key in META_KEYS for m in members)
        if meta_later and any(e.key in META_KEYS for e in init_entries):
            raise Unhandled(
                KEYED_DICT, f"trace/transient split between `{var} = {{…}}` and later assignments"
            )
        new_init: list[NewEntry] = envelope_entries(
            tag, init_entries, quote, KEYED_DICT, is_dict_call, partial=True, meta_later=meta_later
        )
        for m in members:
            if m.key == "question":
                question_content(m.value, quote, KEYED_DICT, is_dict_call)
            if m.key in ("content", "message") and not_a_string(m.value):
                raise Unhandled(
                    KEYED_DICT,
                    f"{var}[{m.key!r}] is not a string: no Outcome for JP, which shows it as raw text",
                )
            if (tag == "success" and m.key in ("isError", "_meta")) or (
                tag != "success" and m.key in ("content", "isError", "_meta")
            ):
                raise Unhandled(KEYED_DICT, f"key {m.key!r} would clash with the envelope")
    except Unhandled as exc:
        return Finding(anchor, exc.rule, "unhandled", exc.reason)
    rewrites = []
    if [e.key for e in new_init] != [e.key for e in init_entries] or any(
        e.origin is None or e.origin.value is not e.value for e in new_init
    ):

        def rewrite_init(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Dict)
            fresh = envelope_entries(
                tag,
                dict_entries(updated),
                quote,
                KEYED_DICT,
                shaped_like_dict_call,
                partial=True,
                meta_later=meta_later,
            )
            return rebuild(updated, fresh, quote)

        rewrites.append((init, rewrite_init))
    rewrites += [
        (m.line, _rewrite_statement(m, tag, quote, is_dict_call))
        for m in members
        if m.key in LEGACY_KEYS or m.key == "type"
    ]
    reason = f"{tag} Outcome built key by key → RFD 058 envelope"
    return Finding(anchor, KEYED_DICT, "rewritten", reason, tuple(rewrites), init)


def _update_call(statement: cst.BaseStatement) -> tuple[str, set[str], cst.Call] | None:
    """`var.update(k=v, …)` / `var.update({"k": v, …})` alone on its line: (var, constant keys, call)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    call = small.value if isinstance(small, cst.Expr) else None
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and isinstance(call.func.value, cst.Name)
        and call.func.attr.value == "update"
    ):
        return None
    keys = {a.keyword.value for a in call.args if a.keyword is not None}
    for arg in call.args:
        if arg.keyword is None and isinstance(arg.value, cst.Dict):
            keys |= {k for e in dict_entries(arg.value) if (k := e.key) is not None}
    return call.func.value.value, keys, call


def _looks_like_outcome(keys: set[str]) -> bool:
    return could_be_outcome(set(keys))


def _subscript_quote(target: cst.Subscript) -> str:
    index = target.slice[0].slice
    return build.quote_of(index.value if isinstance(index, cst.Index) else None)


@dataclass
class Keyed:
    """What the key-by-key transform decided, and what the read-back check must know of it."""

    findings: list[Finding] = field(default_factory=list)
    claimed: set[int] = field(default_factory=set)  # ids of the `out = {…}` literals they own
    variables: dict[int, tuple[Scope, str]] = field(default_factory=dict)  # by init id
    # ids of the `out["key"]` targets a finding here rewrites or reports: `reads` leaves them be.
    owned: set[int] = field(default_factory=set)


def keyed_findings(found: Scan, is_dict_call: IsDictCall) -> Keyed:
    """Findings, the `out = {…}` literals and `out["key"]` statements they own, and their variables."""
    keyed = Keyed()
    findings, claimed, variables = keyed.findings, keyed.claimed, keyed.variables
    for body, scope in found.blocks:
        assigns = [key_assign(s) for s in body]
        grouped: set[int] = set()
        for i, statement in enumerate(body):
            init = _init_var(statement)
            if init is None:
                continue
            var, literal = init
            end = next(
                (k for k in range(i + 1, len(body)) if _init(body[k], var) is not None), len(body)
            )
            members = [a for a in assigns[i + 1 : end] if a is not None and a.var == var]
            type_entry = next((e for e in dict_entries(literal) if e.key == "type"), None)
            update = next(
                (u for u in map(_update_call, body[i + 1 : end]) if u and u[0] == var), None
            )
            tags = [const_str(type_entry.value)] if type_entry is not None else []
            tags += [const_str(m.value) for m in members if m.key == "type"]
            if update is not None and any(t in TAGS for t in tags):
                # `out.update(...)` completing an Outcome whose tag is set elsewhere: which keys
                # end up in it, and when, is not stated where the tag is.
                reason = f"an Outcome completed with `{var}.update(…)`"
                findings.append(Finding(update[2], KEYED_DICT, "unhandled", reason))
                claimed.add(id(literal))
                grouped.update(id(m) for m in members)
                keyed.owned.update(id(m.target) for m in members)
                continue
            if not members:
                # Keys set only in the branches that follow (`out = {}; if …: out["type"] = …`).
                # Blocks come outer first, so the nested ones below see what is owned here.
                branched, targets = branched_finding(var, literal, body[i + 1 : end], is_dict_call)
                if branched is not None:
                    findings.append(branched)
                    keyed.owned.update(id(t) for t in targets)
                    claimed.add(id(literal))
                    if branched.action == "rewritten":
                        variables[id(literal)] = (scope, var)
                continue
            type_assign = next((m for m in members if m.key == "type"), None)
            tag_node = (
                type_assign.value
                if type_assign is not None
                else type_entry.value
                if type_entry is not None
                else None
            )
            if tag_node is None:
                continue
            anchor: cst.CSTNode = type_assign.target if type_assign is not None else literal
            tag = const_str(tag_node)
            legacy = any(m.key in LEGACY_KEYS for m in members)
            if tag is None:
                keys = {m.key for m in members} | {e.key for e in dict_entries(literal)}
                if could_be_outcome(keys):
                    findings.append(
                        Finding(
                            anchor,
                            DYNAMIC_TYPE,
                            "unhandled",
                            f'{var}["type"] is not a constant string',
                        )
                    )
                    grouped.update(id(m) for m in members)
                    keyed.owned.update(id(m.target) for m in members)
                continue
            if tag not in TAGS or not (legacy or type_assign is not None):
                continue
            quote = (
                _subscript_quote(type_assign.target)
                if type_assign is not None
                else build.quote_of(
                    type_entry.item.key
                    if type_entry is not None and isinstance(type_entry.item, cst.DictElement)
                    else None
                )
            )
            findings.append(_group(literal, members, tag, anchor, quote, is_dict_call))
            grouped.update(id(m) for m in members)
            keyed.owned.update(id(m.target) for m in members)
            claimed.add(id(literal))
            variables[id(literal)] = (scope, var)
        for head in assigns:
            if (
                head is None
                or head.key != "type"
                or id(head) in grouped
                or id(head.target) in keyed.owned
            ):
                continue
            tag = const_str(head.value)
            if tag in TAGS:
                reason = f'{head.var}["type"] is set without `{head.var} = {{…}}` earlier in the same block'
                findings.append(Finding(head.target, KEYED_DICT, "unhandled", reason))
                keyed.owned.add(id(head.target))
            elif tag is None and _looks_like_outcome(
                {a.key for a in assigns if a is not None and a.var == head.var}
            ):
                findings.append(
                    Finding(
                        head.target,
                        DYNAMIC_TYPE,
                        "unhandled",
                        f'{head.var}["type"] is not a constant string',
                    )
                )
                keyed.owned.add(id(head.target))
        for statement in body:
            for target, value in _other_type_sets(statement):
                if id(target) not in keyed.owned and const_str(value) in TAGS:
                    reason = (
                        f"{cst.Module([]).code_for_node(target)} is set in a statement the "
                        "rewrite does not follow (joined with `;`, chained or annotated)"
                    )
                    findings.append(Finding(target, KEYED_DICT, "unhandled", reason))
                    keyed.owned.add(id(target))
    return keyed


def _other_type_sets(
    statement: cst.BaseStatement,
) -> list[tuple[cst.Subscript, cst.BaseExpression]]:
    """`var["type"] = value` in a form `key_assign` does not take: one of several
    statements on a line, one of chained targets, or annotated."""
    if not isinstance(statement, cst.SimpleStatementLine) or key_assign(statement) is not None:
        return []
    found: list[tuple[cst.Subscript, cst.BaseExpression]] = []
    for small in statement.body:
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        else:
            continue
        for target in targets:
            if (
                isinstance(target, cst.Subscript)
                and isinstance(target.value, cst.Name)
                and subscript_key(target) == "type"
            ):
                found.append((target, small.value))
    return found
