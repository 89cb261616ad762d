"""Code that reads or changes a legacy Outcome's keys: it would break once the Outcome is an envelope.

Rules `codemod-reads-legacy-keys` (reads) and `codemod-keyed-dict` (writes). Tracked
in one file, by name rather than by scope, so that a miss is a false alarm and
never a silent wrong rewrite. A name (or `a.b` attribute) *may hold* an Outcome
the codemod rewrites when it is assigned, iterated from, or passed as a
parameter an expression that mentions one: a rewritten Outcome, another such
name, or a function of this file that returns (or yields) such an expression.
On such a value, these are sites:

- `x["content"]`, `x.get/pop/setdefault("message")`, `"trace" in x`, a `match`
  mapping pattern with a legacy key (reads);
- `x["content"] = …` outside the block whose key-by-key rewrite owns it, and
  `x.update(…)` that may set a legacy key (writes: the rewrite would not see them);

and anywhere, a `["type"]` (or a `match` pattern's "type") compared with a tag.

A value also *may hold* one once it is put into a container (`xs.append(v)`,
`d[k] = v`, `xs += […]`), is a parameter's default, is passed beside a callback
(`max(outs, key=lambda r: …)`, `map(f, outs)`: the callback's parameters), or is
returned by a call that cannot be named (`getattr(self, name)(…)`, `table[k](…)`)
or by a property (`self.result`) while some function of the file returns one. A
dict that merges one (`{**x, "content": …}`, `x | {…}`, `x |= {…}`, `dict(x, …)`)
with keys that may be legacy is a write site; so is one that merges a partial
template (`{"type": "success"}`), which the rewrite leaves as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from jp_migrate.codemod.entries import const_str, dict_entries, subscript_key
from jp_migrate.codemod.mapping import LEGACY_KEYS, TAGS
from jp_migrate.codemod.readback import key_read, tag_test, type_operand
from jp_migrate.codemod.scan import (
    Scan,
    Scope,
    called_name,
    children,
    dotted,
    target_names,
    walk,
)
from jp_migrate.codemod.sites import KEYED_DICT, READS_LEGACY_KEYS, Finding

DESCRIPTION = "Code reading a legacy Outcome's keys back is rewritten (known shapes) or reported."

_READ_KEYS = LEGACY_KEYS | {"type"}


def _maybe_legacy(key: str | None) -> bool:
    """A key that is, or may be (not a constant, a `**` spread), a legacy Outcome key."""
    return key is None or key in _READ_KEYS


_READ_METHODS = frozenset({"get", "pop", "setdefault"})


@dataclass(frozen=True)
class Refs:
    """What an expression mentions: enough to tell whether its value may be (or hold) an Outcome."""

    outcome: bool  # it contains a node that builds a rewritten Outcome
    names: frozenset[str]  # names and `a.b` attribute chains it mentions
    called: frozenset[str]  # functions and methods it calls
    dynamic: bool = False  # it calls what cannot be named: `getattr(o, n)(…)`, `table[k](…)`


def _union(parts: Iterable[Refs]) -> Refs:
    items = list(parts)
    return Refs(
        any(r.outcome for r in items),
        frozenset().union(*(r.names for r in items)),
        frozenset().union(*(r.called for r in items)),
        any(r.dynamic for r in items),
    )


class _Mentions(cst.CSTVisitor):
    """Collects what `refs` reports, driven by `scan.walk`."""

    def __init__(self, outcomes: set[int]) -> None:
        super().__init__()
        self._outcomes = outcomes
        self.outcome = self.dynamic = False
        self.names: set[str] = set()
        self.called: set[str] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._outcomes:
            self.outcome = True
        return super().on_visit(node)

    def visit_Name(self, node: cst.Name) -> bool:
        self.names.add(node.value)
        return False

    def visit_SimpleString(self, node: cst.SimpleString) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        # `a.out` mentions `a` and `a.out`, not a name `out`.
        name = dotted(node)
        if name is not None:
            self.names.add(name)
        walk(node.value, self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(node.value, self)  # nor does `f(content=x)` mention a name `content`
        return False

    def visit_Call(self, node: cst.Call) -> None:
        callee = called_name(node.func)
        if callee is not None:
            self.called.add(callee)
        elif isinstance(node.func, (cst.Call, cst.Subscript)):
            self.dynamic = True


def refs(node: cst.CSTNode, outcomes: set[int]) -> Refs:
    """What `node` mentions; `outcomes`: ids of the nodes that build a rewritten Outcome."""
    mentions = _Mentions(outcomes)
    walk(node, mentions)
    return Refs(
        mentions.outcome, frozenset(mentions.names), frozenset(mentions.called), mentions.dynamic
    )


_RECEIVERS = frozenset({"self", "cls"})


def _params(function: cst.FunctionDef) -> tuple[list[str], list[str]]:
    """(positional parameter names in order, every parameter name), `self`/`cls` left out.

    A value passed in never binds the receiver; marking `self` would make every
    `self.x["content"]` of the file a site.
    """
    return _param_names(function.params, skip_receiver=True)


def _param_names(p: cst.Parameters, *, skip_receiver: bool = False) -> tuple[list[str], list[str]]:
    """(positional parameter names in order, every parameter name) of a def or a lambda."""
    positional = [x.name.value for x in (*p.posonly_params, *p.params)]
    if skip_receiver and positional[:1] and positional[0] in _RECEIVERS:
        positional = positional[1:]
    every = positional + [x.name.value for x in p.kwonly_params]
    every += [s.name.value for s in (p.star_arg, p.star_kwarg) if isinstance(s, cst.Param)]
    return positional, every


def _bound_params(call: cst.Call, functions: list[cst.FunctionDef], index: int) -> set[str]:
    """The parameters of a function of this file that `call.args[index]` may land in.

    Where it cannot be told (`*args`, a keyword caught by `**kw`), every parameter.
    """
    arg = call.args[index]
    out: set[str] = set()
    for function in functions:
        positional, every = _params(function)
        if arg.star:
            out.update(every)
        elif arg.keyword is not None:
            out.update([arg.keyword.value] if arg.keyword.value in every else every)
        else:
            out.update(positional[index : index + 1] or every)
    return out


class Holders:
    """The names that may hold a rewritten Outcome and the functions that may return one."""

    def __init__(
        self,
        found: Scan,
        outcomes: set[int],
        variables: Iterable[str],
        helpers: Iterable[str] = (),
    ) -> None:
        """`helpers`: names (`run`, `mod.run`) bound to another file's functions returning one."""
        self._outcomes = outcomes
        self.names: set[str] = set(variables)
        self.helpers: set[str] = set(helpers)
        if not (outcomes or self.names or self.helpers):
            return  # nothing rewritten: nothing can hold it
        bindings = [([name], refs(value, outcomes)) for _s, name, value in found.assigns]
        bindings += [(target_names(t), refs(i, outcomes)) for t, i in found.loops]
        bindings += self._arguments(found)
        bindings += _mutations(found, outcomes)
        bindings += _defaults(found, outcomes)
        bindings += _callbacks(found, outcomes)
        returns = [
            (scope.name.value, refs(value, outcomes))
            for scope, value in found.returns
            if isinstance(scope, cst.FunctionDef)
        ]
        changed = True
        while changed:  # until nothing new: each round follows one more step of a chain
            changed = False
            for names, mentioned in bindings:
                if not self.names.issuperset(names) and self.refer(mentioned):
                    self.names.update(names)
                    changed = True
            for function, mentioned in returns:
                if function not in self.helpers and self.refer(mentioned):
                    self.helpers.add(function)
                    changed = True

    def _arguments(self, found: Scan) -> list[tuple[list[str], Refs]]:
        """An argument passed to a function of this file binds that function's parameter."""
        out: list[tuple[list[str], Refs]] = []
        for call, _scope in found.calls:
            name = called_name(call.func)
            functions = (
                found.functions.get(name) or found.constructors.get(name)
                if name is not None
                else None
            )
            if not functions:
                continue
            for index, arg in enumerate(call.args):
                params = _bound_params(call, functions, index)
                if params:
                    out.append((sorted(params), refs(arg.value, self._outcomes)))
        return out + _decorated(found)

    def refer(self, mentioned: Refs) -> bool:
        return (
            mentioned.outcome
            or not mentioned.names.isdisjoint(self.names)
            or not mentioned.names.isdisjoint(self.helpers)
            or not mentioned.called.isdisjoint(self.helpers)
            or bool(self.helpers)
            and (
                mentioned.dynamic  # `getattr(self, name)(…)` may call any of them
                or any(  # `self.result`: a property (or a bound method) that returns one
                    name.rpartition(".")[2] in self.helpers for name in mentioned.names
                )
            )
        )

    def exported(self) -> frozenset[str]:
        """The functions of the file that may return a rewritten Outcome."""
        return frozenset(self.helpers)

    def holds(self, node: cst.BaseExpression) -> str | None:
        """How to name `node` in a report when its value may be a rewritten Outcome, else None."""
        if not self.refer(refs(node, self._outcomes)):
            return None
        name = dotted(node)
        if name is not None:
            return f"`{name}`"
        callee = called_name(node.func) if isinstance(node, cst.Call) else None
        if callee is not None:
            return f"`{callee}(…)`"
        return "a value that may hold a rewritten Outcome"


# Methods that put their arguments into the container they are called on.
_MUTATORS = frozenset(
    {"append", "appendleft", "extend", "extendleft", "insert", "add", "setdefault", "update"}
    | {"put", "put_nowait", "push"}
)


def _container(node: cst.BaseExpression) -> str | None:
    """The name of a container receiving a value (`self` and `cls` are not containers)."""
    name = dotted(node)
    return None if name is None or name in _RECEIVERS else name


def _mutations(found: Scan, outcomes: set[int]) -> list[tuple[list[str], Refs]]:
    """`xs.append(v)`, `d.setdefault(k, v)`, `d[k] = v`: the container holds what it was given.

    (`xs += […]` is an assignment of the scan.)
    """
    out: list[tuple[list[str], Refs]] = []
    for call, _scope in found.calls:
        method = _method(call)
        if method is None or method[1] not in _MUTATORS or not call.args:
            continue
        name = _container(method[0])
        if name is not None:
            out.append(([name], _union(refs(a.value, outcomes) for a in call.args)))
    for target, value in found.stores:
        name = _container(target.value)
        if name is not None:
            out.append(([name], refs(value, outcomes)))
    return out


def _defaults(found: Scan, outcomes: set[int]) -> list[tuple[list[str], Refs]]:
    """`def f(x=DEFAULT)`: the parameter may hold its default."""
    out: list[tuple[list[str], Refs]] = []
    for functions in found.functions.values():
        for function in functions:
            p = function.params
            for param in (*p.posonly_params, *p.params, *p.kwonly_params):
                if param.default is not None:
                    out.append(([param.name.value], refs(param.default, outcomes)))
    return out


def _callbacks(found: Scan, outcomes: set[int]) -> list[tuple[list[str], Refs]]:
    """`max(outs, key=lambda r: …)`, `map(f, outs)`: a callback's parameters may hold
    what the call was given beside it (a lambda's, or those of a function of this file)."""
    out: list[tuple[list[str], Refs]] = []
    for call, _scope in found.calls:
        for index, arg in enumerate(call.args):
            value = arg.value
            params: list[str] = []
            if isinstance(value, cst.Lambda):
                params = _param_names(value.params)[1]
            else:
                name = dotted(value)
                functions = found.functions.get(name.rpartition(".")[2]) if name else None
                params = [n for f in functions or [] for n in _params(f)[1]]
            if params:
                others = [a for i, a in enumerate(call.args) if i != index]
                out.append((params, _union(refs(a.value, outcomes) for a in others)))
    return out


def _decorated(found: Scan) -> list[tuple[list[str], Refs]]:
    """`@deco def f` passes `f` to `deco` (`@factory(…)` to the functions `factory`
    defines): it binds their first parameter, as `deco(f)` would."""
    out: list[tuple[list[str], Refs]] = []
    for name, functions in found.functions.items():
        mention = Refs(False, frozenset({name}), frozenset())
        for function in functions:
            for decorator in function.decorators:
                expression = decorator.decorator
                factory = isinstance(expression, cst.Call)
                callee = called_name(
                    expression.func if isinstance(expression, cst.Call) else expression
                )
                receivers = found.functions.get(callee) if callee is not None else None
                for receiver in receivers or []:
                    targets = _nested_functions(receiver) if factory else [receiver]
                    params = {p for t in targets for p in _params(t)[0][:1]}
                    if params:
                        out.append((sorted(params), mention))
    return out


def _nested_functions(function: cst.FunctionDef) -> list[cst.FunctionDef]:
    """The functions defined inside `function`, at any depth."""
    nested: list[cst.FunctionDef] = []

    class Visitor(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node is not function:
                nested.append(node)

    function.visit(Visitor())
    return nested


def _method(node: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """`x.name(…)` → (x, "name")."""
    func = node.func
    if isinstance(func, cst.Attribute):
        return func.value, func.attr.value
    return None


def _get_key(node: cst.Call) -> tuple[cst.BaseExpression, str] | None:
    """`x.get("key", …)` (or pop, setdefault) → (x, "key")."""
    method = _method(node)
    if method is not None and method[1] in _READ_METHODS and node.args:
        key = const_str(node.args[0].value)
        if key is not None:
            return method[0], key
    return None


def _may_update_legacy_key(call: cst.Call) -> bool:
    """`x.update(…)` whose keys are not all constants an Outcome does not know."""
    for arg in call.args:
        if arg.keyword is not None:
            keys: list[str | None] = [arg.keyword.value]
        elif arg.star or not isinstance(arg.value, cst.Dict):
            return True
        else:
            keys = [e.key for e in dict_entries(arg.value)]
        if any(_maybe_legacy(key) for key in keys):
            return True
    return False


@dataclass(frozen=True)
class _Candidate:
    """A use of a legacy key on `value`: a site when `value` may hold a rewritten Outcome."""

    anchor: cst.CSTNode
    value: cst.BaseExpression
    rule: str
    reason: str  # with `{what}` for how the value is named


def _subscript_candidates(found: Scan, owned: set[int]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for sub, _scope in found.subscripts:
        key = subscript_key(sub)
        if key not in _READ_KEYS or id(sub) in owned:
            continue
        if id(sub) in found.stored:
            reason = (
                f"sets the legacy Outcome key {key!r} of {{what}} outside the block that builds it"
            )
            out.append(_Candidate(sub, sub.value, KEYED_DICT, reason))
        else:
            reason = f"reads the legacy Outcome key {key!r} of {{what}}"
            out.append(_Candidate(sub, sub.value, READS_LEGACY_KEYS, reason))
    return out


def _call_candidates(found: Scan) -> list[_Candidate]:
    out: list[_Candidate] = []
    for call, _scope in found.calls:
        out += _keyword_reads(call)
        got = _get_key(call)
        if got is not None:
            if got[1] in _READ_KEYS:
                reason = f"reads the legacy Outcome key {got[1]!r} of {{what}}"
                out.append(_Candidate(call, got[0], READS_LEGACY_KEYS, reason))
            continue
        method = _method(call)
        if method is not None and method[1] == "update" and _may_update_legacy_key(call):
            reason = "`.update(…)` on {what} may set a legacy Outcome key the rewrite does not see"
            out.append(_Candidate(call, method[0], KEYED_DICT, reason))
    return out


_BY_KEY = "reads its keys by name"


def _keyword_reads(call: cst.Call) -> list[_Candidate]:
    """`f(**x)`, `s.format_map(x)`, `log.info("%(content)s", x)`: every key read by name."""
    out = [
        _Candidate(arg.value, arg.value, READS_LEGACY_KEYS, f"unpacks {{what}}: {_BY_KEY}")
        for arg in call.args
        if arg.star == "**"
    ]
    method = _method(call)
    if method is not None and method[1] == "format_map" and call.args:
        value = call.args[0].value
        reason = f"formats {{what}} with `format_map`: {_BY_KEY}"
        out.append(_Candidate(value, value, READS_LEGACY_KEYS, reason))
    args = call.args
    if (
        len(args) == 2
        and _formats_by_key(args[0].value)
        and not args[1].star
        and not args[1].keyword
    ):
        value = args[1].value
        out.append(
            _Candidate(value, value, READS_LEGACY_KEYS, f"formats {{what}} by key: {_BY_KEY}")
        )
    return out


def _formats_by_key(node: cst.BaseExpression) -> bool:
    """A constant %-format string that names keys: `"%(content)s"`."""
    text = const_str(node)
    return text is not None and "%(" in text


def _may_set_legacy_key(node: cst.BaseExpression) -> bool:
    """A mapping that may set a legacy Outcome key: a dict display with one (or with a key
    that is not a constant, or `**`), or anything else."""
    if not isinstance(node, cst.Dict):
        return True
    return any(_maybe_legacy(e.key) for e in dict_entries(node))


_MERGED = "the rewrite does not see the merged dict"


def _merge_candidates(found: Scan) -> list[_Candidate]:
    """`{**x, "content": …}`, `x | {…}`, `x |= {…}`, `dict(x, message=…)`: a merge that may
    set a legacy key on (a copy of) `x`."""
    out: list[_Candidate] = []
    for node, _scope in found.dicts:
        spread = [e for e in node.elements if isinstance(e, cst.StarredDictElement)]
        keyed = [e for e in dict_entries(node) if isinstance(e.item, cst.DictElement)]
        if spread and (len(spread) > 1 or any(_maybe_legacy(e.key) for e in keyed)):
            for element in spread:
                reason = f"merges {{what}} into a dict that may set legacy Outcome keys: {_MERGED}"
                out.append(_Candidate(element, element.value, KEYED_DICT, reason))
    for union in found.unions:
        for value, other in ((union.left, union.right), (union.right, union.left)):
            if _may_set_legacy_key(other):
                reason = f"merges {{what}} with `|` and keys that may be legacy: {_MERGED}"
                out.append(_Candidate(union, value, KEYED_DICT, reason))
    for augmented in found.augmented:
        if isinstance(augmented.operator, cst.BitOrAssign) and _may_set_legacy_key(augmented.value):
            reason = "`|=` on {what} may set a legacy Outcome key the rewrite does not see"
            out.append(_Candidate(augmented, augmented.target, KEYED_DICT, reason))
    for call, _scope in found.calls:
        func, args = call.func, call.args
        if (
            isinstance(func, cst.Name)
            and func.value == "dict"
            and args
            and not args[0].star
            and args[0].keyword is None
            and _may_update_legacy_key(call.with_changes(args=args[1:]))
        ):
            reason = f"`dict(…)` of {{what}} may set legacy Outcome keys: {_MERGED}"
            out.append(_Candidate(call, args[0].value, KEYED_DICT, reason))
    return out


def partial_templates(found: Scan, outcomes: set[int]) -> set[int]:
    """Dicts tagged like an Outcome (`{"type": "success"}`) that the rewrite leaves as they are:
    merged with the rest of an Outcome elsewhere, they print a legacy one."""
    out: set[int] = set()
    for node, _scope in found.dicts:
        if id(node) in outcomes:
            continue
        for element in node.elements:
            if (
                isinstance(element, cst.DictElement)
                and const_str(element.key) == "type"
                and const_str(element.value) in TAGS
            ):
                out.add(id(node))
    return out


def _modulo_candidates(found: Scan) -> list[_Candidate]:
    """`"%(type)s: %(content)s" % x`."""
    reason = f"formats {{what}} by key (`%`): {_BY_KEY}"
    return [
        _Candidate(op.right, op.right, READS_LEGACY_KEYS, reason)
        for op in found.modulos
        if _formats_by_key(op.left)
    ]


def _membership_candidates(found: Scan) -> list[_Candidate]:
    """`"message" in res`."""
    out: list[_Candidate] = []
    for comparison in found.comparisons:
        left = comparison.left
        for target in comparison.comparisons:
            key = const_str(left)
            if key in _READ_KEYS and isinstance(target.operator, (cst.In, cst.NotIn)):
                reason = f"tests for the legacy Outcome key {key!r} of {{what}}"
                out.append(_Candidate(left, target.comparator, READS_LEGACY_KEYS, reason))
            left = target.comparator
    return out


def _mapping_keys(pattern: cst.CSTNode) -> list[cst.MatchMappingElement]:
    """Every `"key": pattern` of the mapping patterns in `pattern`, nested ones too."""
    found = m.findall(pattern, m.MatchMappingElement())
    return [node for node in found if isinstance(node, cst.MatchMappingElement)]


def _match_findings(found: Scan) -> tuple[list[Finding], list[_Candidate]]:
    """`match r: case {"type": "success", …}` anywhere; `case {"content": c}` when `r` may be one."""
    out: list[Finding] = []
    candidates: list[_Candidate] = []
    for match in found.matches:
        for case in match.cases:
            for element in _mapping_keys(case.pattern):
                key = const_str(element.key)
                pattern = element.pattern
                tag = const_str(pattern.value) if isinstance(pattern, cst.MatchValue) else None
                if key == "type" and tag in TAGS:
                    reason = f'matches a legacy Outcome\'s "type" against {tag!r}'
                    out.append(Finding(element.key, READS_LEGACY_KEYS, "unhandled", reason))
                elif key in _READ_KEYS:
                    reason = f"matches the legacy Outcome key {key!r} of {{what}}"
                    candidates.append(
                        _Candidate(element.key, match.subject, READS_LEGACY_KEYS, reason)
                    )
    return out, candidates


# An operand `r["type"]` of a comparison `readback` maps → (the comparison, `r`, its new test).
Fixable = dict[int, tuple[cst.Comparison, cst.Name, cst.BaseExpression]]


def _fixable(found: Scan) -> Fixable:
    out: Fixable = {}
    for comparison in found.comparisons:
        got = tag_test(comparison)
        if got is not None:
            operands = [comparison.left, comparison.comparisons[0].comparator]
            anchor = next(o for o in operands if type_operand(o) is not None)
            out[id(anchor)] = (comparison, got[0], got[1])
    return out


def _rewritten_read(anchor: cst.CSTNode, node: cst.CSTNode, new: cst.CSTNode, what: str) -> Finding:
    reason = f"a read of {what}'s legacy keys → a read of the RFD 058 envelope"
    return Finding(anchor, READS_LEGACY_KEYS, "rewritten", reason, ((node, lambda _old: new),))


def _comparison_findings(
    found: Scan,
    out: list[Finding],
    fixable: Fixable | None = None,
    holders: Holders | None = None,
) -> list[Finding]:
    """Anywhere: `x["type"] == "success"`, `x.get("type") != "error"`."""
    anchors = {id(f.anchor) for f in out}
    new: list[Finding] = []
    for comparison in found.comparisons:
        operands = [comparison.left, *(t.comparator for t in comparison.comparisons)]
        if not any(const_str(o) in TAGS for o in operands):
            continue
        for operand in operands:
            if isinstance(operand, cst.Subscript) and subscript_key(operand) == "type":
                anchor: cst.CSTNode = operand
            elif isinstance(operand, cst.Call) and (_get_key(operand) or (None, ""))[1] == "type":
                anchor = operand
            else:
                continue
            if id(anchor) not in anchors:
                anchors.add(id(anchor))
                fix = (fixable or {}).get(id(anchor))
                what = holders.holds(fix[1]) if fix is not None and holders else None
                if fix is not None and what is not None:
                    new.append(_rewritten_read(anchor, fix[0], fix[2], what))
                    continue
                reason = 'compares a legacy Outcome\'s "type" with a tag'
                new.append(Finding(anchor, READS_LEGACY_KEYS, "unhandled", reason))
    return new


def _target_subscripts(found: Scan) -> set[int]:
    """Subscripts written to, not read: a read rewritten there would not compile (`del r["x"]`)."""
    roots = [t for t, _i in found.loops] + [a.target for a in found.augmented] + found.targets
    out = set(found.stored)
    stack: list[cst.CSTNode] = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript):
            out.add(id(node))
        elif isinstance(node, (cst.Tuple, cst.List, cst.StarredElement, cst.Element, cst.Del)):
            stack.extend(children(node))
    return out


def read_findings(
    found: Scan,
    outcomes: set[int],
    variables: dict[int, tuple[Scope, str]],
    owned: set[int] | None = None,
    sites: frozenset[int] = frozenset(),
    helpers: frozenset[str] = frozenset(),
    rewrite: bool = False,
) -> list[Finding]:
    """`outcomes`: ids of nodes that build an envelope now; `variables`: key-by-key ones, by init id;
    `owned`: ids of the `x["key"] = …` targets a key-by-key rewrite rewrites (or reports) itself;
    `sites`: ids of the Outcomes some other finding speaks for (not partial templates);
    `helpers`: names bound to another file's functions that return a rewritten Outcome.

    What may hold an Outcome is worked out only when some code uses a legacy key at all.
    `rewrite`: reads of a shape `readback` maps are rewritten rather than reported.
    """
    fixable = _fixable(found) if rewrite else {}
    bound = _target_subscripts(found) if rewrite else set()
    holders: Holders | None = None
    out, candidates = _match_findings(found)
    outcomes = outcomes | partial_templates(found, outcomes | sites)
    if outcomes or variables or helpers:
        candidates += _subscript_candidates(found, owned or set())
        candidates += _call_candidates(found)
        candidates += _membership_candidates(found)
        candidates += _modulo_candidates(found)
        candidates += _merge_candidates(found)
    if candidates and (outcomes or variables or helpers):
        names = (name for _scope, name in variables.values())
        holders = Holders(found, outcomes, names, helpers)
        for candidate in candidates:
            if id(candidate.anchor) in fixable:
                continue  # a `"type"` compared with a tag: `_comparison_findings` decides
            what = holders.holds(candidate.value)
            if what is None:
                continue
            anchor = candidate.anchor
            new = (
                key_read(anchor)
                if rewrite
                and candidate.rule == READS_LEGACY_KEYS
                and isinstance(anchor, cst.Subscript)
                and id(anchor) not in bound
                else None
            )
            if new is not None:
                out.append(_rewritten_read(anchor, anchor, new, what))
                continue
            reason = candidate.reason.format(what=what)
            out.append(Finding(candidate.anchor, candidate.rule, "unhandled", reason))
    found_all = out + _comparison_findings(found, out, fixable, holders)
    return [
        f if f.action == "rewritten" else dataclasses.replace(f, reason=f"{f.reason}{_FIX}")
        for f in found_all
    ]


# What the user can change: said once, after every read's own reason.
_FIX = (
    "; read the RFD 058 envelope instead (content blocks, isError, _meta), or mark the line "
    "`# jp-migrate: skip`"
)
