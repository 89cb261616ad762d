"""Outcomes built by a dataclass of the file whose `type` defaults to a tag (form 7).

    @dataclass                              @dataclass
    class Err:                              class Err:
        message: str                   →        content: list
        trace: list = field(...)                _meta: dict
        transient: bool = False                 isError: bool = True
        type: str = "error"

    Err("no such key", ["hint"])       →    Err(content=[{"type": "text", "text": "no such key"}],
                                                isError=True, _meta={"computer.jp/error": {…}})

Each construction names every field (positional arguments become keywords, a
missing field its default, written out), then is rewritten as `dict(...)` is;
`asdict(...)` of it is then the envelope. Only a class with nothing but Outcome
fields, no methods, whose fields are never read as attributes in the file
(`r.message` would break), is taken; others are reported (`literal`).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.mapping import LEGACY_KEYS, OUTCOME_KEYS, TAGS
from jp_migrate.codemod.scan import Scan
from jp_migrate.codemod.sites import Rebuild


@dataclass(frozen=True)
class OutcomeClass:
    node: cst.ClassDef
    tag: str
    fields: tuple[str, ...]  # in order, `type` included
    defaults: dict[str, cst.BaseExpression]  # the value a missing field takes, as code


# `@dataclass`, `@dataclasses.dataclass`, either called with options.
_DATACLASS_NAME = m.Name("dataclass") | m.Attribute(attr=m.Name("dataclass"))
_DATACLASS = m.Decorator(_DATACLASS_NAME | m.Call(func=_DATACLASS_NAME))
# `field(default_factory=f)` / `field(default=x)`: the value each construction takes.
_FIELD = m.Call(func=m.Name("field"))
_FACTORY = m.Arg(keyword=m.Name("default_factory"))
_DEFAULT = m.Arg(keyword=m.Name("default"))


def _is_dataclass(node: cst.ClassDef) -> bool:
    return any(m.matches(decorator, _DATACLASS) for decorator in node.decorators)


def _default(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """A field's default as an expression each construction can evaluate, or None."""
    if isinstance(value, cst.Call) and m.matches(value, _FIELD):
        for arg in value.args:
            if m.matches(arg, _FACTORY):
                return cst.Call(arg.value) if isinstance(arg.value, cst.Name) else None
            if m.matches(arg, _DEFAULT):
                return arg.value
        return None
    if isinstance(value, (cst.Name, cst.SimpleString, cst.Integer, cst.Float)):
        return value
    return None


class _Attributes(cst.CSTVisitor):
    def __init__(self) -> None:
        self.read: set[str] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.read.add(node.attr.value)


def outcome_dataclasses(found: Scan, module: cst.Module) -> dict[str, OutcomeClass]:
    candidates: dict[str, list[cst.ClassDef]] = {}
    for body, _scope in found.blocks:
        for statement in body:
            if isinstance(statement, cst.ClassDef) and _is_dataclass(statement):
                candidates.setdefault(statement.name.value, []).append(statement)
    out: dict[str, OutcomeClass] = {}
    read: set[str] | None = None
    for name, defs in candidates.items():
        node = defs[0]
        if len(defs) != 1 or not isinstance(node.body, cst.IndentedBlock):
            continue
        fields: list[str] = []
        defaults: dict[str, cst.BaseExpression] = {}
        ok = True
        for line in node.body.body:
            small = line.body[0] if isinstance(line, cst.SimpleStatementLine) else None
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                fields.append(small.target.value)
                if small.value is not None:
                    default = _default(small.value)
                    if default is None:
                        ok = False
                    else:
                        defaults[small.target.value] = default
            elif not (isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)):
                ok = False
        tag = const_str(defaults.get("type"))
        if not ok or tag not in TAGS or not set(fields) <= OUTCOME_KEYS:
            continue
        if read is None:
            visitor = _Attributes()
            module.visit(visitor)
            read = visitor.read
        if read & (LEGACY_KEYS | {"type"}):
            continue  # `r.message` somewhere: the class's fields are read back
        out[name] = OutcomeClass(node, tag, tuple(fields), defaults)
    return out


def named_arguments(call: cst.Call, spec: OutcomeClass) -> cst.Call | None:
    """The construction with every field a keyword argument (None: it cannot be named)."""
    args: list[cst.Arg] = []
    given: set[str] = set()
    positional = list(spec.fields)
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if index >= len(positional):
                return None
            name = positional[index]
            arg = arg.with_changes(
                keyword=cst.Name(name),
                equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
            )
        assert arg.keyword is not None
        given.add(arg.keyword.value)
        args.append(arg)
    for name in spec.fields:
        if name not in given and name != "type":
            default = spec.defaults.get(name)
            if default is None:
                return None  # a required field left out: the call fails as it is
            args.append(
                cst.Arg(
                    default,
                    keyword=cst.Name(name),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
                )
            )
    commas = [
        a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        for a in args[:-1]
    ]
    last = [args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)] if args else []
    return call.with_changes(args=[*commas, *last])


def _line(code: str, like: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    parsed = cst.parse_statement(code)
    assert isinstance(parsed, cst.SimpleStatementLine)
    return like.with_changes(body=parsed.body)


def rewrite_dataclass(tag: str) -> Rebuild:
    """The class with the envelope's fields (required ones first, as a dataclass needs)."""

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.ClassDef) and isinstance(updated.body, cst.IndentedBlock)
        lines = [s for s in updated.body.body if isinstance(s, cst.SimpleStatementLine)]
        fields = [s for s in lines if isinstance(s.body[0], cst.AnnAssign)]
        gone = {id(s) for s in fields}
        kept = [s for s in updated.body.body if id(s) not in gone]
        like = fields[0]
        new = [_line("content: list", like)]
        if tag == "error":
            new += [_line("_meta: dict", like), _line("isError: bool = True", like)]
        return updated.with_changes(body=updated.body.with_changes(body=[*kept, *new]))

    return rewrite
