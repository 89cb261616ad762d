"""A legacy Outcome inside an MCP server (rule `codemod-mcp-server`, form 9).

An MCP server that answers with an Outcome as the JSON text of a content item
relies on RFD D31's bridge. Its migration is to return MCP's own result:
`return json.dumps({"type": "error", …})` in a tool handler (FastMCP's
`@server.tool()`, the low-level `@server.call_tool()`), or a call of a helper
of the file that hands its argument to `json.dumps`, becomes
`return CallToolResult.model_validate({"content": […], "isError": True,
"_meta": {"computer.jp/error": {…}}})`: the text content, `isError`, and the
error's transient/trace under `_meta`, as RFD 058 reads an MCP result. A
FastMCP tool's return annotation becomes `CallToolResult` (FastMCP checks what
a tool returns against it). A needs_input Outcome has no MCP result: it is
reported with the elicitation that replaces it. Anything else is reported.
A file that imports an MCP SDK (`mcp`, `mcp_types`, `fastmcp`) is such a
server, and so is one that dispatches on the method `"tools/call"` (JSON-RPC by
hand).
"""

from __future__ import annotations

import dataclasses

import libcst as cst
import libcst.matchers as m

from jp_migrate.codemod.entries import const_str, entries_of
from jp_migrate.codemod.names import Names
from jp_migrate.codemod.scan import Scan, called_name
from jp_migrate.codemod.sites import MCP_SERVER, Finding, Rebuild

DESCRIPTION = "A legacy Outcome in an MCP server (RFD D31's bridge) becomes an MCP CallToolResult."
SDKS = frozenset({"mcp", "mcp_types", "fastmcp"})
_METHOD = "tools/call"
RESULT = "CallToolResult"


def _root(node: cst.BaseExpression) -> str | None:
    """The first name of a dotted module name (`mcp` of `mcp.server.fastmcp`)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def is_mcp_server(found: Scan) -> bool:
    """Whether the file imports an MCP SDK or dispatches on MCP's `"tools/call"` itself."""
    return imports_mcp(found) or dispatches_tools_call(found)


def dispatches_tools_call(found: Scan) -> bool:
    """`"tools/call"` compared with (`method == "tools/call"`, `in (...)`) or a dict's key
    (a handler table): a hand-written JSON-RPC server. The text alone, as a tool's output
    or a message, is no server."""
    for comparison in found.comparisons:
        operands = [comparison.left, *(target.comparator for target in comparison.comparisons)]
        for operand in operands:
            if const_str(operand) == _METHOD:
                return True
            if isinstance(operand, (cst.Tuple, cst.List, cst.Set)) and any(
                const_str(e.value) == _METHOD for e in operand.elements
            ):
                return True
    return any(
        isinstance(element, cst.DictElement) and const_str(element.key) == _METHOD
        for node, _ in found.dicts
        for element in node.elements
    )


def imports_mcp(found: Scan) -> bool:
    """Whether any import in the file, at any depth, names an MCP SDK."""
    for node in found.imports:
        if isinstance(node, cst.Import):
            if any(_root(alias.name) in SDKS for alias in node.names):
                return True
        elif not node.relative and node.module is not None and _root(node.module) in SDKS:
            return True
    return False


# `@x.tool(…)` / `@x.tool` (FastMCP), `@x.call_tool(…)` (the low-level server).
_KIND = m.Attribute(attr=m.SaveMatchedNode(m.Name("tool") | m.Name("call_tool"), "kind"))
_HANDLER = m.Decorator(m.Call(func=_KIND) | _KIND)


def _handler_kind(function: cst.FunctionDef) -> str | None:
    """ "tool" for FastMCP's `@x.tool(…)`, "call_tool" for the low-level `@x.call_tool(…)`."""
    for decorator in function.decorators:
        got = m.extract(decorator, _HANDLER)
        if got is not None:
            return cst.ensure_type(got["kind"], cst.Name).value
    return None


# One parameter, not counting positional-only ones; no `*args`, keyword-only or `**kwargs`.
_ONE_PARAMETER = m.Parameters(
    params=[m.Param()], star_arg=~m.Param(), kwonly_params=[], star_kwarg=None
)


def _serialises_argument(function: cst.FunctionDef, names: Names, found: Scan) -> bool:
    """A one-parameter helper that hands its parameter to `json.dumps` (`as_content(o)`)."""
    if not m.matches(function.params, _ONE_PARAMETER):
        return False
    dumps_parameter = m.Call(
        args=[m.Arg(m.Name(function.params.params[0].name.value)), m.ZeroOrMore()]
    )
    return any(
        scope is function and m.matches(call, dumps_parameter) and names.sink(call) == "json.dumps"
        for call, scope in found.calls
    )


_QUESTION_LITERAL = m.Dict() | m.Call(func=m.Name("dict") | m.Attribute(attr=m.Name("dict")))


def _question_hint(node: cst.CSTNode) -> str:
    """The elicitation that replaces a needs_input Outcome, with its own id, text and type."""
    entries = entries_of(node) if isinstance(node, (cst.Dict, cst.Call)) else []
    question = next((e.value for e in entries if e.key == "question"), None)
    qid, text, kind = "answer", "…", "bool"
    if isinstance(question, (cst.Dict, cst.Call)) and m.matches(question, _QUESTION_LITERAL):
        for e in entries_of(question):
            if e.key == "id":
                qid = const_str(e.value) or qid
            elif e.key == "text":
                text = cst.Module([]).code_for_node(e.value)
            elif e.key == "answer_type":
                tag = const_str(e.value)
                kind = {"Boolean": "bool", "Text": "str"}.get(tag or "", "Literal[…options]")
    return (
        "a needs_input Outcome in an MCP server has no MCP result; ask with elicitation "
        f"instead: take `ctx: Context`, `class Ask(BaseModel): {qid}: {kind}`, then "
        f"`answer = await ctx.elicit(message={text}, schema=Ask)` and go on with "
        f'`answer.data.{qid}` when `answer.action == "accept"`; not rewritten'
    )


_OTHER = (
    "a legacy Outcome in an MCP server (read through RFD D31's bridge) that is not returned "
    "by a tool handler as `json.dumps(…)` (or a helper of the file that dumps its argument): "
    "return it that way, or return a CallToolResult yourself; not rewritten"
)


def in_mcp_server(
    findings: list[Finding],
    found: Scan,
    names: Names,
    module: cst.Module,
    dumpers: frozenset[str] = frozenset(),
) -> list[Finding]:
    """`dumpers`: functions of the file that `json.dumps` their keywords (`outcome(**fields)`)."""
    """Each rewrite a transform proposed, turned into an MCP-native return, or a report."""
    first_args = {id(c.args[0].value): c for c, _ in found.calls if c.args}
    returned = {id(value): scope for scope, value in found.returns}
    helpers = {
        name: defs[0]
        for name, defs in found.functions.items()
        if len(defs) == 1 and _serialises_argument(defs[0], names, found)
    }
    out: list[Finding] = []
    handlers: dict[int, cst.FunctionDef] = {}
    for finding in findings:
        if finding.action != "rewritten" or finding.outcome is None:
            out.append(finding)
            continue
        if finding.reason.startswith("needs_input"):
            out.append(_report(finding, _question_hint(finding.outcome)))
            continue
        own = finding.outcome
        if isinstance(own, cst.Call) and called_name(own.func) in dumpers:
            call, serialises = own, True  # `outcome(type=…, …)`: builds and dumps at once
        else:
            call = first_args.get(id(finding.outcome))
            serialises = call is not None and (
                names.sink(call) == "json.dumps" or called_name(call.func) in helpers
            )
        scope = returned.get(id(call)) if call is not None else None
        if not (
            serialises and isinstance(scope, cst.FunctionDef) and _handler_kind(scope) is not None
        ):
            out.append(_report(finding, _OTHER))
            continue
        assert call is not None and isinstance(scope, cst.FunctionDef)
        handlers[id(scope)] = scope
        if call is own:
            rewrites = [(n, _then_result(r) if n is own else r) for n, r in finding.rewrites]
        else:
            rewrites = [*finding.rewrites, (call, _as_result)]
        if _handler_kind(scope) == "tool" and scope.returns is not None:
            rewrites.append((scope, _annotated))
        if not _bound_at_top(module, RESULT):
            rewrites.append((module, _imported))
        reason = finding.reason.replace("RFD 058 envelope", "MCP CallToolResult")
        out.append(
            dataclasses.replace(finding, rule=MCP_SERVER, reason=reason, rewrites=tuple(rewrites))
        )
    return out


def _report(finding: Finding, reason: str) -> Finding:
    return dataclasses.replace(
        finding, rule=MCP_SERVER, action="unhandled", reason=reason, rewrites=(), outcome=None
    )


def _as_result(updated: cst.CSTNode) -> cst.CSTNode:
    """`json.dumps(envelope, …)` → `CallToolResult.model_validate(envelope)`."""
    assert isinstance(updated, cst.Call)
    func = cst.Attribute(cst.Name(RESULT), cst.Name("model_validate"))
    return updated.with_changes(
        func=func, args=[updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    )


def _then_result(rebuild: Rebuild) -> Rebuild:
    """`outcome(content=…)` (the keywords rewritten) → `CallToolResult.model_validate(dict(…))`."""

    def wrapped(updated: cst.CSTNode) -> cst.CSTNode:
        call = rebuild(updated)
        assert isinstance(call, cst.Call)
        func = cst.Attribute(cst.Name(RESULT), cst.Name("model_validate"))
        return cst.Call(func, [cst.Arg(call.with_changes(func=cst.Name("dict")))])

    return wrapped


def _annotated(updated: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(updated, cst.FunctionDef) and updated.returns is not None
    return updated.with_changes(returns=updated.returns.with_changes(annotation=cst.Name(RESULT)))


def _bound_at_top(module: cst.Module, name: str) -> bool:
    """Whether a top-level `from … import` binds `name` already."""
    binds = m.ImportAlias(name=m.Name(name), asname=None) | m.ImportAlias(
        asname=m.AsName(name=m.Name(name))
    )
    imports = m.SimpleStatementLine(
        body=[
            m.ZeroOrMore(),
            m.ImportFrom(names=[m.ZeroOrMore(), binds, m.ZeroOrMore()]),
            m.ZeroOrMore(),
        ]
    )
    return any(m.matches(statement, imports) for statement in module.body)


_IMPORT_LINE = m.SimpleStatementLine(
    body=[m.ZeroOrMore(), m.Import() | m.ImportFrom(), m.ZeroOrMore()]
)


def _imported(updated: cst.CSTNode) -> cst.CSTNode:
    """`from mcp.types import CallToolResult` after the module's last top-level import."""
    assert isinstance(updated, cst.Module)
    body = list(updated.body)
    last = max(
        (i for i, s in enumerate(body) if m.matches(s, _IMPORT_LINE)),
        default=-1,
    )
    line = cst.parse_statement(f"from mcp.types import {RESULT}\n")
    body.insert(last + 1, line)
    return updated.with_changes(body=body)
