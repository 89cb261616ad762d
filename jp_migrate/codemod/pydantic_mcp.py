"""A pydantic Outcome model in an MCP server (forms 7 and 9): its dumps become MCP results.

    @server.tool()                                  @server.tool()
    def load() -> str:                              def load() -> CallToolResult:
        return Outcome.ok(t).text()         →           return Outcome.ok(t).text()

    def text(self) -> str:                          def text(self) -> CallToolResult:
        return self.model_dump_json()       →           return CallToolResult.model_validate(
                                                            self.model_dump(by_alias=True, exclude_none=True))

A dump counts when a tool handler returns it, or when it is what a method of
the model returns and every call of that method is returned by a tool handler;
the envelope the model now dumps is the MCP result's own shape (text content,
`isError`, `_meta`). Anything else stands in the way, with what to change.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from jp_migrate.codemod.mapping import Unhandled
from jp_migrate.codemod.mcpserver import RESULT, _annotated, _bound_at_top, _handler_kind, _imported
from jp_migrate.codemod.pydantic_rebuild import EQUAL, comma
from jp_migrate.codemod.sites import MCP_SERVER, Rebuild

Parent = Callable[[cst.CSTNode], cst.CSTNode | None]


def _returned_by(node: cst.CSTNode, parent: Parent) -> cst.FunctionDef | None:
    """The function whose `return` statement hands on `node` as it is."""
    statement = parent(node)
    if not (isinstance(statement, cst.Return) and statement.value is node):
        return None
    current = parent(statement)
    while current is not None and not isinstance(current, cst.FunctionDef):
        current = parent(current)
    return current


def _returned(dump: cst.Call, parent: Parent) -> cst.BaseExpression:
    """The dump, or the `json.dumps(…)` around a `model_dump(…)`, as the tool hands it on."""
    arg = parent(dump)
    outer = parent(arg) if isinstance(arg, cst.Arg) else None
    if (
        isinstance(outer, cst.Call)
        and m.matches(outer.func, m.Attribute(m.Name("json"), m.Name("dumps")) | m.Name("dumps"))
        and outer.args[0] is arg
    ):
        return outer
    return dump


def result_rewrites(
    module: cst.Module, dumps: list[cst.Call], parent: Parent, where: Callable[[cst.CSTNode], str]
) -> list[tuple[cst.CSTNode, Rebuild]]:
    """The rewrites turning each dump into the tool's `CallToolResult`; Unhandled otherwise."""
    out: list[tuple[cst.CSTNode, Rebuild]] = []
    for dump in dumps:
        returned = _returned(dump, parent)
        function = _returned_by(returned, parent)
        if function is None:
            raise Unhandled(
                MCP_SERVER,
                f"the dump at {where(dump)} is not what a function returns: return it from the "
                "tool (or from a method of the model the tool returns) to have it rewritten",
            )
        out.append((returned, _as_result(dump)))
        if _handler_kind(function) is not None:
            out += _handler(function)
            continue
        out += _method(module, function, parent, where)
    if not _bound_at_top(module, RESULT):
        out.append((module, _imported))
    return out


def _handler(function: cst.FunctionDef) -> list[tuple[cst.CSTNode, Rebuild]]:
    if _handler_kind(function) == "tool" and function.returns is not None:
        return [(function, _annotated)]
    return []


def _method(
    module: cst.Module, method: cst.FunctionDef, parent: Parent, where: Callable[[cst.CSTNode], str]
) -> list[tuple[cst.CSTNode, Rebuild]]:
    """A method returning the dump: each call of it must be returned by a tool handler."""
    out: list[tuple[cst.CSTNode, Rebuild]] = []
    if method.returns is not None:
        out.append((method, _annotated_any))
    calls = m.findall(module, m.Call(func=m.Attribute(attr=m.Name(method.name.value))))
    for call in calls:
        handler = _returned_by(call, parent)
        if handler is None or _handler_kind(handler) is None:
            raise Unhandled(
                MCP_SERVER,
                f"`.{method.name.value}()` at {where(call)} is not returned by a tool handler, "
                f"and the rewrite makes it return a {RESULT}: return it from the tool to have "
                "it rewritten",
            )
        out += _handler(handler)
    return out


def _annotated_any(updated: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(updated, cst.FunctionDef) and updated.returns is not None
    return updated.with_changes(returns=updated.returns.with_changes(annotation=cst.Name(RESULT)))


def _as_result(dump: cst.Call) -> Rebuild:
    """`x.model_dump_json(…)` (or `json.dumps(x.model_dump(…))`) →
    `CallToolResult.model_validate(x.model_dump(by_alias=True, exclude_none=True))`."""
    receiver = dump.func.value if isinstance(dump.func, cst.Attribute) else None
    assert receiver is not None

    def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Call)
        inner: cst.BaseExpression = updated
        if not m.matches(
            updated.func, m.Attribute(attr=m.Name("model_dump_json") | m.Name("model_dump"))
        ):
            inner = updated.args[0].value  # `json.dumps(x.model_dump(…))`
        assert isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute)
        dumped = cst.Call(
            inner.func.with_changes(attr=cst.Name("model_dump")),
            [
                cst.Arg(cst.Name("True"), keyword=cst.Name("by_alias"), equal=EQUAL, comma=comma()),
                cst.Arg(cst.Name("True"), keyword=cst.Name("exclude_none"), equal=EQUAL),
            ],
        )
        func = cst.Attribute(cst.Name(RESULT), cst.Name("model_validate"))
        return cst.Call(func, [cst.Arg(dumped)])

    return rewrite
