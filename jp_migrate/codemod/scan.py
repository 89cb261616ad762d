"""One read-only pass over a libcst module, in source order, collecting what the transforms look at.

`Collector` is a `libcst.CSTVisitor`: one `visit_<Node>` per kind of node the
rules ask about. `scan` drives it with `walk`, which calls the visitor's
`on_visit`/`on_leave` in the order libcst's own traversal does but does not
rebuild each node on the way back up (libcst's `CSTNode.visit` does, even for
a read-only visitor), and skips the whitespace fields no rule looks at.
The nodes of each kind come out in the order their first token appears,
which `positions` relies on.
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
_SEQUENCES = (list, tuple)
_SCALARS = frozenset({str, bool, int, cst.MaybeSentinel})


@functools.cache
def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """A node kind's fields that may hold an expression or statement, in source order."""
    return _ORDER.get(kind) or tuple(
        f.name
        for f in dataclasses.fields(kind)
        if f.name not in _NOISE and not f.name.startswith("whitespace")
    )


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`node`'s child expressions and statements, in source order (whitespace left out)."""
    out: list[cst.CSTNode] = []
    for name in _fields(type(node)):
        value = getattr(node, name)
        if value is None or type(value) in _SCALARS:
            continue
        if type(value) in _SEQUENCES:
            out.extend(value)
        else:
            out.append(value)
    return out


def walk(root: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """`root.visit(visitor)` for a read-only visitor, less the rebuilding and the whitespace."""
    stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            visitor.on_leave(node)
        elif visitor.on_visit(node):
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children(node)))
        else:
            visitor.on_leave(node)


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
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


class Collector(cst.CSTVisitor):
    """Fills a `Scan`; each node is recorded when visited, so each list is in source order."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__()
        self.found = Scan()
        self._scopes: list[Scope] = [module]
        self._parts: set[int] = set()  # ids of the strings an implicit concatenation is made of

    @property
    def _scope(self) -> Scope:
        return self._scopes[-1]

    def _assigned(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            self.found.stored.add(id(target))
            self.found.stores.append((target, value))
        else:
            self.found.assigns.extend((self._scope, n, value) for n in target_names(target))

    def _string(self, node: cst.BaseString) -> None:
        if id(node) not in self._parts:
            self.found.strings.append(node)

    # Scopes and blocks.
    def visit_Module(self, node: cst.Module) -> None:
        self.found.blocks.append((node.body, node))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.found.blocks.append((node.body, self._scope))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.found.functions.setdefault(node.name.value, []).append(node)
        self._scopes.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._scopes.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if isinstance(node.body, cst.IndentedBlock):
            inits = [
                s
                for s in node.body.body
                if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"
            ]
            self.found.constructors.setdefault(node.name.value, []).extend(inits)
        self._scopes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._scopes.pop()

    # The expressions a site can be.
    def visit_Dict(self, node: cst.Dict) -> None:
        self.found.dicts.append((node, self._scope))

    def visit_Call(self, node: cst.Call) -> None:
        self.found.calls.append((node, self._scope))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        self.found.subscripts.append((node, self._scope))

    def visit_SimpleString(self, node: cst.SimpleString) -> bool:
        self._string(node)
        return False

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> None:
        self._string(node)
        self._parts.update((id(node.left), id(node.right)))

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._string(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.found.comparisons.append(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo):
            self.found.modulos.append(node)
        elif isinstance(node.operator, cst.BitOr):
            self.found.unions.append(node)

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.BaseString):
            self.found.statement_strings.add(id(node.value))

    def visit_Import(self, node: cst.Import) -> bool:
        self.found.imports.append(node)
        return False  # nothing inside an import is for the codemod

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.found.imports.append(node)
        return False

    # What binds a name or hands a value on, for the read-back analysis (`reads`).
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assigned(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.found.augmented.append(node)
        self._assigned(node.target, node.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._assigned(node.target, node.value)

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.found.returns.append((self._scope, node.value))

    def visit_Yield(self, node: cst.Yield) -> None:
        if isinstance(node.value, cst.BaseExpression):
            self.found.returns.append((self._scope, node.value))
        elif isinstance(node.value, cst.From):  # `yield from x` hands on x's items
            self.found.returns.append((self._scope, node.value.item))

    def visit_For(self, node: cst.For) -> None:
        self.found.loops.append((node.target, node.iter))

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.found.loops.append((node.target, node.iter))

    def visit_Del(self, node: cst.Del) -> None:
        self.found.targets.append(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.found.targets.append(node.asname.name)

    def visit_Match(self, node: cst.Match) -> None:
        self.found.matches.append(node)


def scan(module: cst.Module) -> Scan:
    collector = Collector(module)
    walk(module, collector)
    return collector.found
