"""Outcome dict literals and `dict(type=…)` calls, wherever they appear → RFD 058 envelopes.

Rules: `codemod-success-dict`, `codemod-error-dict`, `codemod-needs-input-dict`
(literals), `codemod-dict-call` (calls), with `codemod-dynamic-type` and
`codemod-spread` for what cannot be rewritten safely.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import libcst as cst

from jp_migrate.codemod import build
from jp_migrate.codemod.constants import Constants
from jp_migrate.codemod.dataclassed import OutcomeClass, named_arguments, rewrite_dataclass
from jp_migrate.codemod.entries import (
    Entry,
    call_entries,
    const_str,
    dict_entries,
    entries_of,
    rebuild,
)
from jp_migrate.codemod.held import Held, Questions
from jp_migrate.codemod.mapping import (
    LEGACY_KEYS,
    OUTCOME_KEYS,
    REQUIRED,
    RULE_FOR_TAG,
    TAGS,
    IsDictCall,
    Unhandled,
    could_be_outcome,
    envelope_entries,
    question_content,
    shaped_like_dict_call,
)
from jp_migrate.codemod.models import Models
from jp_migrate.codemod.names import Names
from jp_migrate.codemod.scan import Scan, Scope, called_name
from jp_migrate.codemod.sites import DICT_CALL, DYNAMIC_TYPE, SPREAD, Finding, Rebuild
from jp_migrate.codemod.typeddicts import rewrite_class, tagged_classes

DESCRIPTION = (
    "Outcome dict literals and dict(type=…) calls become RFD 058 envelopes where they stand."
)


def _finding(
    node: cst.Dict | cst.Call,
    entries: list[Entry],
    rule: str | None,
    is_dict_call: IsDictCall,
    printed: Callable[[cst.CSTNode], str | None] = lambda _node: None,
    held_by: Callable[[cst.BaseExpression], Held | str] | None = None,
    string: Callable[[cst.BaseExpression], str | None] = const_str,
    shape: IsDictCall = shaped_like_dict_call,
    extra: tuple[tuple[cst.CSTNode, Rebuild], ...] = (),
    spread_by: Callable[[str], Held | str] | None = None,
) -> Finding | None:
    """`shape`: what a rebuilt node that builds a dict looks like; `extra`: rewrites that go
    with this one (a TypedDict's class)."""
    """`printed(node)`: the name of the call that prints or serialises `node` (json.dumps…), if any."""
    type_entry = next((e for e in entries if e.key == "type"), None)
    if type_entry is None:
        return None
    keys = {e.key for e in entries}
    tag = string(type_entry.value)
    if tag is None:
        # Only a dict made of nothing but Outcome keys is taken for one: {"type": t, "content": c,
        # "role": r} is somebody else's (an LLM message, a lexer table…).
        if could_be_outcome(keys):
            return Finding(
                node, DYNAMIC_TYPE, "unhandled", 'the Outcome\'s "type" is not a constant string'
            )
        # ... unless its other keys are hidden by a `**` spread and it is printed as the
        # tool's output: `print(json.dumps({"type": kind, **fields}))` in an output helper.
        sink = printed(node) if None in keys else None
        if sink is not None:
            shown = cst.Module([]).code_for_node(type_entry.value)
            reason = (
                f'a "type" taken from `{shown}`, not a constant string, in a dict passed to '
                f"{sink}: which Outcome it is is only known when the tool runs"
            )
            return Finding(node, DYNAMIC_TYPE, "unhandled", reason)
        return None
    if tag not in TAGS:
        return None
    if tag != "needs_input" and None not in keys and not keys & LEGACY_KEYS:
        # {"type": "error", "code": 3} is somebody else's dict (a Slack payload, an event), unless
        # it holds nothing but a tag and is printed as a tool's output.
        sink = printed(node)
        if sink is None or keys - OUTCOME_KEYS:
            return None
        missing = ", ".join(repr(k) for k in REQUIRED[tag])
        reason = f"incomplete {tag} Outcome passed to {sink}: no {missing}"
        return Finding(node, rule or RULE_FOR_TAG[tag], "unhandled", reason)
    acting = rule or RULE_FOR_TAG[tag]
    # The key's quote; in `dict(type=…)`, the tag's: the call may sit in an f-string
    # whose own quote a new string must not reuse (before Python 3.12).
    quote = build.quote_of(
        type_entry.item.key if isinstance(type_entry.item, cst.DictElement) else type_entry.value
    )
    spread = _held_spread(entries, type_entry, spread_by)
    if spread is not None:
        return _spread_finding(node, tag, acting, quote, entries.index(type_entry), spread, shape)
    question = next((e.value for e in entries if e.key == "question"), None)
    held: Held | None = None
    runtime = False
    if tag == "needs_input" and question is not None and not _literal(question, is_dict_call):
        found = held_by(question) if held_by is not None else None
        if isinstance(found, str) and not isinstance(question, cst.Name):
            return Finding(node, acting, "unhandled", found)
        # A name whose literal cannot be followed: its content list is built when the tool runs.
        runtime = isinstance(found, str) or found is None
        held = Held((), f"`{cst.Module([]).code_for_node(question)}`") if runtime else found
    more: list[tuple[cst.CSTNode, Rebuild]] = list(extra)
    try:
        envelope_entries(
            tag, entries, quote, acting, is_dict_call, held=held is not None, runtime=runtime
        )
        for literal in held.literals if held is not None else ():
            try:
                question_content(literal, quote, acting, is_dict_call)
            except Unhandled:
                if not isinstance(question, cst.Name):
                    raise
                runtime, more = True, list(extra)  # a name: converted when the tool runs
                break
            more.append((literal, _question_rewrite(quote, acting, shape)))
    except Unhandled as exc:
        where = f" (in {held.what})" if held is not None else ""
        return Finding(node, exc.rule, "unhandled", exc.reason + where)

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, (cst.Dict, cst.Call))
        fresh = dict_entries(updated) if isinstance(updated, cst.Dict) else call_entries(updated)
        # Keys as first read (a name's string is known for the original nodes only).
        fresh = [
            dataclasses.replace(new, key=old.key) for old, new in zip(entries, fresh, strict=True)
        ]
        new = envelope_entries(
            tag, fresh, quote, acting, shape, held=held is not None, runtime=runtime
        )
        return rebuild(updated, new, quote)

    callee = (
        node.func.value if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) else ""
    )
    what = f"{callee}(...) call" if isinstance(node, cst.Call) else "dict"
    return Finding(
        node,
        acting,
        "rewritten",
        f"{tag} Outcome {what} → RFD 058 envelope",
        ((node, rewrite), *more),
        node,
    )


def _held_spread(
    entries: list[Entry], type_entry: Entry, spread_by: Callable[[str], Held | str] | None
) -> Held | str | None:
    """What `{"type": tag, **fields}` spreads, when that is all the Outcome holds."""
    rest = [e for e in entries if e is not type_entry]
    if spread_by is None or len(rest) != 1 or rest[0].key is not None:
        return None
    item = rest[0].item
    spread = isinstance(item, cst.StarredDictElement) or (
        isinstance(item, cst.Arg) and item.star == "**"
    )
    if not spread or not isinstance(rest[0].value, cst.Name):
        return None
    return spread_by(rest[0].value.value)


def _spread_finding(
    node: cst.Dict | cst.Call,
    tag: str,
    rule: str,
    quote: str,
    type_index: int,
    spread: Held | str,
    shape: IsDictCall,
) -> Finding:
    """The spread literal becomes the envelope where it is written; the Outcome keeps only
    the spread. Nothing moves: the literal's values are evaluated where they were."""
    if isinstance(spread, str):
        keys = ", ".join(f"`{k}`" for k in REQUIRED[tag])
        reason = (
            f"{spread}; or write the keys it brings ({keys}) into the Outcome itself, as "
            "strings, to have it rewritten"
        )
        return Finding(node, SPREAD, "unhandled", reason)
    literal = spread.literals[0]
    inner = entries_of(literal)
    try:
        if any(e.key == "type" for e in inner):
            raise Unhandled(
                rule, 'it holds a "type" of its own: keep only the Outcome\'s, to have it rewritten'
            )
        envelope_entries(tag, inner, quote, rule, shape)
    except Unhandled as exc:
        return Finding(node, exc.rule, "unhandled", f"{exc.reason} (in {spread.what})")

    def envelope(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, (cst.Dict, cst.Call))
        return rebuild(
            updated, envelope_entries(tag, entries_of(updated), quote, rule, shape), quote
        )

    def untagged(updated: cst.CSTNode) -> cst.CSTNode:
        if isinstance(updated, cst.Dict):
            elements = list(updated.elements)
            del elements[type_index]
            return updated.with_changes(elements=elements)
        assert isinstance(updated, cst.Call)
        args = list(updated.args)
        del args[type_index]
        return updated.with_changes(args=args)

    reason = f"{tag} Outcome spreading {spread.what} → RFD 058 envelope"
    return Finding(node, rule, "rewritten", reason, ((node, untagged), (literal, envelope)), node)


def _named_keys(node: cst.Dict) -> bool:
    """A key, or the tag, written as a name that may hold an Outcome's key or tag (`TYPE`, `key`):
    only then is the scope analysis (several times a parse) worth asking."""
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            continue
        if isinstance(element.key, cst.Name) and _KEYISH.search(element.key.value):
            return True
        if const_str(element.key) == "type" and isinstance(element.value, cst.Name):
            return True
    return False


_KEYISH = re.compile(r"(?i)type|content|message|trace|transient|question|key")


def _dataclass_finding(
    node: cst.Call, spec: OutcomeClass, is_dict_call: IsDictCall, shape: IsDictCall
) -> Finding:
    """A construction of an Outcome dataclass, every field named, rewritten as dict(...) is."""
    named = named_arguments(node, spec)
    if named is None:
        reason = (
            f"{spec.tag} Outcome built by `{spec.node.name.value}(…)` with arguments that "
            "cannot be matched to its fields (`*`, `**`, too many): name each field to have "
            "it rewritten"
        )
        return Finding(node, DICT_CALL, "unhandled", reason)
    quote = '"'
    try:
        entries = [e for e in call_entries(named) if e.key != "type"]
        envelope_entries(spec.tag, entries, quote, DICT_CALL, is_dict_call)
    except Unhandled as exc:
        return Finding(node, exc.rule, "unhandled", exc.reason)

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        call = named_arguments(updated, spec)
        assert call is not None
        fresh = [e for e in call_entries(call) if e.key != "type"]
        return rebuild(call, envelope_entries(spec.tag, fresh, quote, DICT_CALL, shape), quote)

    reason = f"{spec.tag} Outcome built by dataclass `{spec.node.name.value}` → RFD 058 envelope"
    rewrites = ((node, rewrite), (spec.node, rewrite_dataclass(spec.tag)))
    return Finding(node, DICT_CALL, "rewritten", reason, rewrites, node)


def _literal(node: cst.BaseExpression, is_dict_call: IsDictCall) -> bool:
    return isinstance(node, cst.Dict) or is_dict_call(node)


def _question_rewrite(quote: str, rule: str, shape: IsDictCall) -> Rebuild:
    """The question literal, where it is written, becomes the content list."""

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, (cst.Dict, cst.Call))
        return question_content(updated, quote, rule, shape)

    return rewrite


def printed_by(found: Scan, names: Names) -> Callable[[cst.CSTNode], str | None]:
    """Which sink (json.dumps, print, sys.stdout.write, however imported) a node is handed to."""
    first_args: dict[int, cst.Call] | None = None

    def sink(node: cst.CSTNode) -> str | None:
        nonlocal first_args
        if first_args is None:
            first_args = {id(c.args[0].value): c for c, _ in found.calls if c.args}
        call = first_args.get(id(node))
        return names.sink(call) if call is not None else None

    return sink


def literal_findings(
    found: Scan,
    is_dict_call: IsDictCall,
    claimed: set[int],
    names: Names | None = None,
    questions: Questions | None = None,
    constants: Constants | None = None,
) -> list[Finding]:
    """Dict literals not already claimed by another transform (`claimed`: ids of key-by-key inits)."""
    out: list[Finding] = []
    printed = printed_by(found, names) if names is not None else (lambda _node: None)
    for node, scope in found.dicts:
        if id(node) in claimed:
            continue
        held_by = _held_by(questions, scope)
        spread_by = _spread_by(questions, scope)
        string = constants.string if constants is not None and _named_keys(node) else const_str
        entries = dict_entries(node, string)
        finding = _finding(
            node, entries, None, is_dict_call, printed, held_by, string, spread_by=spread_by
        )
        if finding is not None:
            out.append(finding)
    return out


def _constructor_finding(
    node: cst.Call, type_arg: cst.Arg, models: Models | None = None
) -> Finding | None:
    """`Success(type="success", content=x)`: an Outcome built by a call that is not the builtin dict.

    A TypedDict, a dataclass, a local `def dict(**kw)`: what it builds is not known,
    so it is not rewritten; with a tag and a legacy key it is reported, never left as is.
    """
    tag = const_str(type_arg.value)
    if tag not in TAGS:
        return None
    keys = {a.keyword.value if a.keyword is not None else None for a in node.args}
    if not (keys & LEGACY_KEYS or any(a.star == "**" for a in node.args)):
        return None
    name = called_name(node.func) or "…"
    model = models.model_of(node) if models is not None else None
    if model is not None:
        return Finding(node, DICT_CALL, "unhandled", models.reason(tag, name, model))  # type: ignore[union-attr]
    reason = (
        f"{tag} Outcome built by `{name}(…)`, which is not the builtin dict (a dataclass, a "
        "pydantic model, a class of another file): not rewritten; build it as a dict, a "
        "`dict(...)` call or a TypedDict of this file to have it rewritten"
    )
    return Finding(node, DICT_CALL, "unhandled", reason)


def _held_by(
    questions: Questions | None, scope: Scope
) -> Callable[[cst.BaseExpression], Held | str] | None:
    if questions is None:
        return None
    return lambda value: questions.held(value, scope)


def _spread_by(questions: Questions | None, scope: Scope) -> Callable[[str], Held | str] | None:
    if questions is None:
        return None
    return lambda name: questions.spread(name, scope)


def call_findings(
    found: Scan,
    is_dict_call: IsDictCall,
    questions: Questions | None = None,
    shape: IsDictCall = shaped_like_dict_call,
    classes: dict[str, cst.ClassDef] | None = None,
    dataclasses_of: dict[str, OutcomeClass] | None = None,
    models: Models | None = None,
) -> list[Finding]:
    """`classes`: the file's Outcome TypedDicts (their calls build dicts, see `typeddicts`)."""
    out: list[Finding] = []
    tagged = tagged_classes(found)
    specs = dataclasses_of or {}
    for node, scope in found.calls:
        name = called_name(node.func)
        spec = specs.get(name or "") if isinstance(node.func, cst.Name) else None
        if spec is not None:
            out.append(_dataclass_finding(node, spec, is_dict_call, shape))
            continue
        if name in tagged and not any(a.keyword and a.keyword.value == "type" for a in node.args):
            reason = (
                f"{tagged[name]} Outcome built by `{name}(…)`, whose `type` field defaults to "
                f"{tagged[name]!r}: a class is not rewritten; build the Outcome as a dict (or a "
                "TypedDict of this file) to have it rewritten"
            )
            out.append(Finding(node, DICT_CALL, "unhandled", reason))
            continue
        type_arg = None
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "type":
                type_arg = arg
                break
        if type_arg is None:
            continue
        if not (shape(node) and is_dict_call(node)):
            foreign = _constructor_finding(node, type_arg, models)
            if foreign is not None:
                out.append(foreign)
            continue
        entries = call_entries(node)
        tag = next((const_str(e.value) for e in entries if e.key == "type"), None)
        if tag not in TAGS and any(e.key is None for e in entries):
            continue
        if any(e.key is None and node.args[i].star != "**" for i, e in enumerate(entries)):
            reason = "positional or `*` argument in a dict(type=…) Outcome: pass every key by name"
            out.append(Finding(node, SPREAD, "unhandled", reason))
            continue
        name = node.func.value if isinstance(node.func, cst.Name) else ""
        typed = (classes or {}).get(name)
        extra = ((typed, rewrite_class),) if typed is not None else ()
        finding = _finding(
            node,
            entries,
            DICT_CALL,
            is_dict_call,
            held_by=_held_by(questions, scope),
            shape=shape,
            extra=extra,
            spread_by=_spread_by(questions, scope),
        )
        if finding is not None:
            out.append(finding)
    return out
