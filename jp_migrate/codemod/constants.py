"""What string a name holds, when every binding of it holds the same one (libcst's ScopeProvider).

`TYPE = "type"` at module level, `kind, key = "success", "content"` in each
branch of a function: a key or tag written as such a name is that string. A
name bound any other way (a parameter, a loop, an import, `+=`, a call) holds
no constant, and neither does one bound to two different strings.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import Assignment

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.names import Names


class _Bindings(cst.CSTVisitor):
    """id(target name) → the expression `=` binds to it (element by element for tuples)."""

    def __init__(self) -> None:
        self.values: dict[int, cst.BaseExpression] = {}

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.values[id(target)] = value
        elif (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in target.elements)
            and not any(isinstance(e, cst.StarredElement) for e in value.elements)
        ):
            for t, v in zip(target.elements, value.elements, strict=True):
                self._bind(t.value, v.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)


class Constants:
    def __init__(self, module: cst.Module, names: Names) -> None:
        self._module = module
        self._names = names
        self._values: dict[int, cst.BaseExpression] | None = None

    def string(self, node: cst.BaseExpression | None) -> str | None:
        """The string `node` is: a literal, or a name every binding of which is that literal."""
        text = const_str(node)
        if text is not None or not isinstance(node, cst.Name):
            return text
        assignments = self._names.assignments(node)
        if not assignments:
            return None
        if self._values is None:
            visitor = _Bindings()
            self._module.visit(visitor)
            self._values = visitor.values
        found: set[str] = set()
        for assignment in assignments:
            if not isinstance(assignment, Assignment):
                return None  # a builtin or an import
            value = self._values.get(id(assignment.node))
            text = const_str(value)
            if text is None:
                return None
            found.add(text)
        return found.pop() if len(found) == 1 else None
