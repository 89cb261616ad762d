"""One read-only pass over a libcst module, in source order, collecting what the transforms look at.

libcst's own visitor rebuilds every node and `MetadataWrapper` pays for a full
code generation; both cost more than the parse. This walker follows dataclass
fields (in source order) and skips whitespace, so a file with nothing to do
costs little more than its parse. The nodes of each kind come out in the order
their first token appears, which `positions` relies on.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

Scope = cst.Module | cst.FunctionDef | cst.ClassDef

# Fields that never hold an expression or statement.
_NOISE = frozenset(
    {
        "lpar",
        "rpar",
        "comma",
        "semicolon",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "indent",
        "newline",
        "trailing_whitespace",
        "equal",
        "colon",
        "dot",
        "star",
        "lbrace",
        "rbrace",
        "lbracket",
        "rbracket",
        "operator",
        "first_colon",
        "second_colon",
        "asynchronous",
        "conversion",
        "encoding",
        "default_indent",
        "default_newline",
        "has_trailing_newline",
        "relative",
        "whitespace_between",
        "posonly_ind",
    }
)
# Where the dataclass field order is not the source order.
_ORDER: dict[type[cst.CSTNode], tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.IfExp: ("body", "test", "orelse"),
}
# Leaves and subtrees that cannot hold a site (exact types: `isinstance` on libcst's ABCs is slow).
_LEAVES = frozenset(
    {
        cst.Name,
        cst.Integer,
        cst.Float,
        cst.Imaginary,
        cst.Import,
        cst.ImportFrom,
        cst.Pass,
        cst.Break,
        cst.Continue,
        cst.Ellipsis,
        cst.SimpleWhitespace,
        cst.ParenthesizedWhitespace,
        cst.EmptyLine,
        cst.TrailingWhitespace,
        cst.Newline,
        cst.FormattedStringText,
        cst.Comment,
        cst.AssignEqual,
        cst.Colon,
        cst.Dot,
        cst.Semicolon,
    }
)
_SEQUENCES = (list, tuple)
_SCALARS = frozenset({str, bool, int, cst.MaybeSentinel})


def _fields(kind: type[cst.CSTNode], node: cst.CSTNode) -> tuple[str, ...]:
    return _ORDER.get(kind) or _walked_fields(kind)


@functools.cache
def _walked_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """A node kind's fields the scan walks, in order (its dataclass fields, less whitespace)."""
    return tuple(
        f.name
        for f in dataclasses.fields(kind)
        if f.name not in _NOISE and not f.name.startswith("whitespace")
    )


@dataclass
class Scan:
    """What one pass found. Lists hold nodes in source order (see module doc)."""

    dicts: list[tuple[cst.Dict, Scope]] = field(default_factory=list)
    calls: list[tuple[cst.Call, Scope]] = field(default_factory=list)
    subscripts: list[tuple[cst.Subscript, Scope]] = field(default_factory=list)
    strings: list[cst.BaseString] = field(default_factory=list)  # outermost string expressions
    stored: set[int] = field(default_factory=set)  # ids of subscripts that are assignment targets
    statement_strings: set[int] = field(
        default_factory=set
    )  # ids of strings that are a whole statement
    blocks: list[tuple[Sequence[cst.BaseStatement], Scope]] = field(default_factory=list)
    # `name = value` (also `a.b = value`, as "a.b", each name of `a, b = value`, `:=`, `x += value`).
    assigns: list[tuple[Scope, str, cst.BaseExpression]] = field(default_factory=list)
    returns: list[tuple[Scope, cst.BaseExpression]] = field(default_factory=list)  # and yields
    stores: list[tuple[cst.Subscript, cst.BaseExpression]] = field(
        default_factory=list
    )  # `x[k] = value`
    loops: list[tuple[cst.BaseExpression, cst.BaseExpression]] = field(
        default_factory=list
    )  # (target, iterable) of `for` statements and comprehensions
    matches: list[cst.Match] = field(default_factory=list)
    functions: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)
    constructors: dict[str, list[cst.FunctionDef]] = field(
        default_factory=dict
    )  # class name → its `__init__`
    comparisons: list[cst.Comparison] = field(default_factory=list)
    modulos: list[cst.BinaryOperation] = field(default_factory=list)  # `x % y`: maybe formatting
    unions: list[cst.BinaryOperation] = field(default_factory=list)  # `x | y`: maybe a dict merge
    augmented: list[cst.AugAssign] = field(default_factory=list)  # `x += y`, `x |= y`, …
    # `del` targets and `with … as` targets (other targets are in assigns, stores, loops).
    targets: list[cst.BaseExpression] = field(default_factory=list)
    imports: list[cst.Import | cst.ImportFrom] = field(default_factory=list)  # at any depth


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment target binds: `x`, `a.b` (as "a.b"), each name of `a, (b, *c)`."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    name = dotted(target)
    return [name] if name is not None else []


def called_name(func: cst.BaseExpression) -> str | None:
    """The name a call is made by: `f(…)` → "f", `self.fail(…)` → "fail"; None otherwise."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def dotted(node: cst.BaseExpression) -> str | None:
    """`x` → "x", `self.out` → "self.out"; None for anything else."""
    if type(node) is cst.Name:
        return node.value  # type: ignore[attr-defined]
    if type(node) is cst.Attribute:
        base = dotted(node.value)  # type: ignore[attr-defined]
        return None if base is None else f"{base}.{node.attr.value}"  # type: ignore[attr-defined]
    return None


def _assigned(
    found: Scan, scope: Scope, target: cst.BaseExpression, value: cst.BaseExpression
) -> None:
    if type(target) is cst.Subscript:
        found.stored.add(id(target))
        found.stores.append((target, value))  # type: ignore[arg-type]
        return
    found.assigns.extend((scope, name, value) for name in target_names(target))


# Nodes that bind a name or hand a value on, for the read-back analysis (`reads`).
_BINDINGS = frozenset(
    {cst.For, cst.CompFor, cst.NamedExpr, cst.Yield, cst.Match, cst.ClassDef, cst.Del, cst.WithItem}
)


def _bound(found: Scan, scope: Scope, node: cst.CSTNode) -> None:
    if isinstance(node, cst.Del):
        found.targets.append(node.target)
    elif isinstance(node, cst.WithItem):
        if node.asname is not None:
            found.targets.append(node.asname.name)
    elif isinstance(node, (cst.For, cst.CompFor)):
        found.loops.append((node.target, node.iter))
    elif isinstance(node, cst.NamedExpr):
        _assigned(found, scope, node.target, node.value)
    elif isinstance(node, cst.Yield):
        if isinstance(node.value, cst.BaseExpression):  # `yield from x` hands on x's items
            found.returns.append((scope, node.value))
        elif isinstance(node.value, cst.From):
            found.returns.append((scope, node.value.item))
    elif isinstance(node, cst.Match):
        found.matches.append(node)
    elif isinstance(node, cst.ClassDef) and isinstance(node.body, cst.IndentedBlock):
        inits = [
            s
            for s in node.body.body
            if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
        ]
        found.constructors.setdefault(node.name.value, []).extend(inits)


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node`'s child expressions and statements, in source order (whitespace left out)."""
    out: list[cst.CSTNode] = []
    for name in _fields(type(node), node):
        value = getattr(node, name)
        if value is None or type(value) in _SCALARS:
            continue
        if type(value) in _SEQUENCES:
            out.extend(value)
        else:
            out.append(value)
    return out


def scan(module: cst.Module) -> Scan:
    found = Scan()
    stack: list[tuple[cst.CSTNode, Scope, bool]] = [(module, module, False)]
    while stack:
        node, scope, in_concat = stack.pop()
        kind = type(node)
        if kind is cst.Dict:
            found.dicts.append((node, scope))  # type: ignore[arg-type]
        elif kind is cst.Call:
            found.calls.append((node, scope))  # type: ignore[arg-type]
        elif kind is cst.Subscript:
            found.subscripts.append((node, scope))  # type: ignore[arg-type]
        elif kind in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            if not in_concat:
                found.strings.append(node)  # type: ignore[arg-type]
            if kind is cst.SimpleString:
                continue
        elif kind is cst.Module or kind is cst.IndentedBlock:
            found.blocks.append((node.body, scope))  # type: ignore[attr-defined]
        elif kind is cst.FunctionDef:
            found.functions.setdefault(node.name.value, []).append(node)  # type: ignore[attr-defined]
        elif kind is cst.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                _assigned(found, scope, target.target, node.value)  # type: ignore[attr-defined]
        elif kind is cst.AnnAssign:
            if node.value is not None:  # type: ignore[attr-defined]
                _assigned(found, scope, node.target, node.value)  # type: ignore[attr-defined]
        elif kind is cst.Comparison:
            found.comparisons.append(node)  # type: ignore[arg-type]
        elif kind is cst.BinaryOperation:
            operator = type(node.operator)  # type: ignore[attr-defined]
            if operator is cst.Modulo:
                found.modulos.append(node)  # type: ignore[arg-type]
            elif operator is cst.BitOr:
                found.unions.append(node)  # type: ignore[arg-type]
        elif kind is cst.Import or kind is cst.ImportFrom:
            found.imports.append(node)  # type: ignore[arg-type]
            continue  # nothing inside an import is for the codemod
        elif kind is cst.AugAssign:
            found.augmented.append(node)  # type: ignore[arg-type]
            _assigned(found, scope, node.target, node.value)  # type: ignore[attr-defined]
        elif kind is cst.Return:
            if node.value is not None:  # type: ignore[attr-defined]
                found.returns.append((scope, node.value))  # type: ignore[attr-defined]
        elif kind is cst.Expr:
            if isinstance(node.value, cst.BaseString):  # type: ignore[attr-defined]
                found.statement_strings.add(id(node.value))  # type: ignore[attr-defined]
        elif kind in _LEAVES:
            continue
        elif kind in _BINDINGS:
            _bound(found, scope, node)
        inner_scope: Scope = node if kind is cst.FunctionDef or kind is cst.ClassDef else scope  # type: ignore[assignment]
        concat = kind is cst.ConcatenatedString or (in_concat and kind is cst.FormattedString)
        children: list[tuple[cst.CSTNode, Scope, bool]] = []
        for name in _fields(kind, node):
            value = getattr(node, name)
            if value is None or type(value) in _SCALARS:
                continue
            if type(value) in _SEQUENCES:
                children.extend((v, inner_scope, concat) for v in value)
            else:
                children.append((value, inner_scope, concat))
        children.reverse()
        stack.extend(children)
    return found
