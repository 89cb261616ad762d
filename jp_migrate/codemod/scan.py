"""One read-only pass over a libcst module, in source order, collecting what the transforms look at.

libcst's own visitor rebuilds every node and `MetadataWrapper` pays for a full
code generation; both cost more than the parse. This walker follows dataclass
fields (in source order) and skips whitespace, so a file with nothing to do
costs little more than its parse. The nodes of each kind come out in the order
their first token appears, which `positions` relies on.
"""

from __future__ import annotations

import dataclasses
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
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields(kind: type[cst.CSTNode], node: cst.CSTNode) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _ORDER.get(kind) or tuple(
            f.name
            for f in dataclasses.fields(node)  # type: ignore[arg-type]
            if f.name not in _NOISE and not f.name.startswith("whitespace")
        )
        _FIELDS[kind] = names
    return names


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
    assigns: list[tuple[Scope, str, cst.BaseExpression]] = field(default_factory=list)
    returns: list[tuple[Scope, cst.BaseExpression]] = field(default_factory=list)
    functions: dict[str, list[cst.FunctionDef]] = field(default_factory=dict)
    comparisons: list[cst.Comparison] = field(default_factory=list)


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
                if isinstance(target.target, cst.Name):
                    found.assigns.append((scope, target.target.value, node.value))  # type: ignore[attr-defined]
                elif isinstance(target.target, cst.Subscript):
                    found.stored.add(id(target.target))
        elif kind is cst.AnnAssign:
            target = node.target  # type: ignore[attr-defined]
            if isinstance(target, cst.Name) and node.value is not None:  # type: ignore[attr-defined]
                found.assigns.append((scope, target.value, node.value))  # type: ignore[attr-defined]
            elif isinstance(target, cst.Subscript):
                found.stored.add(id(target))
        elif kind is cst.Comparison:
            found.comparisons.append(node)  # type: ignore[arg-type]
        elif kind is cst.Return:
            if node.value is not None:  # type: ignore[attr-defined]
                found.returns.append((scope, node.value))  # type: ignore[attr-defined]
        elif kind is cst.Expr:
            if isinstance(node.value, cst.BaseString):  # type: ignore[attr-defined]
                found.statement_strings.add(id(node.value))  # type: ignore[attr-defined]
        elif kind in _LEAVES:
            continue
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
