"""A legacy Outcome inside an MCP server is reported, never rewritten (rule `codemod-mcp-server`).

An MCP server that answers with an Outcome as the JSON text of a content item
relies on RFD D31's bridge. Its migration is to return MCP content blocks (and
`isError`) itself: rewriting the Outcome into an RFD 058 envelope that is then
sent as text would reach JP as that JSON text, and an error as a success. A
file that imports an MCP SDK (`mcp`, `mcp_types`, `fastmcp`) is such a server,
and so is one that names the method `"tools/call"` (JSON-RPC written by hand).
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.scan import Scan
from jp_migrate.codemod.sites import MCP_SERVER, Finding

DESCRIPTION = (
    "A legacy Outcome in an MCP server (RFD D31's bridge) is reported: return content blocks."
)
SDKS = frozenset({"mcp", "mcp_types", "fastmcp"})


def _root(node: cst.BaseExpression) -> str | None:
    """The first name of a dotted module name (`mcp` of `mcp.server.fastmcp`)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def is_mcp_server(found: Scan) -> bool:
    """Whether the file imports an MCP SDK or handles MCP's `"tools/call"` itself."""
    return any(const_str(s) == "tools/call" for s in found.strings) or imports_mcp(found)


def imports_mcp(found: Scan) -> bool:
    """Whether any import in the file, at any depth, names an MCP SDK."""
    for node in found.imports:
        if isinstance(node, cst.Import):
            if any(_root(alias.name) in SDKS for alias in node.names):
                return True
        elif not node.relative and node.module is not None and _root(node.module) in SDKS:
            return True
    return False


def in_mcp_server(findings: list[Finding]) -> list[Finding]:
    """Each rewrite a transform proposed, turned into a report of this rule."""
    reason = (
        "a legacy Outcome in an MCP server (read through RFD D31's bridge): return MCP "
        "content blocks and isError instead; not rewritten"
    )
    return [
        dataclasses.replace(f, rule=MCP_SERVER, action="unhandled", reason=reason, rewrites=())
        if f.action == "rewritten"
        else f
        for f in findings
    ]
