"""An RFD D31 `--jp` MCP server written for the adapter tests: a tool that asks two
questions in turn, each with a default, so a host with no answers given up front
answers them one elicitation at a time (`tests/test_adapt_verify.py`); and a
resource, a resource template and a prompt, which `adapt --mcp` passes through
(`tests/test_adapt_mcp.py`)."""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent

server = MCPServer("d31-questions")


def _answers(ctx: Context) -> dict[str, Any]:
    meta = ctx.request_context.meta or {}
    tool = meta.get("computer.jp/tool") or {}
    answers = tool.get("answers") if isinstance(tool, dict) else None
    return answers if isinstance(answers, dict) else {}


def _outcome(outcome: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(outcome))])


def _ask(qid: str, text: str, answer_type: Any, default: Any) -> CallToolResult:
    question = {"id": qid, "text": text, "answer_type": answer_type, "default": default}
    return _outcome({"type": "needs_input", "question": question})


@server.tool()
def rename(path: str, ctx: Context) -> CallToolResult:
    """Rename a file to a naming style, after asking which style and whether to."""
    answers = _answers(ctx)
    if "style" not in answers:
        return _ask("style", "Which style?", {"Select": {"options": ["snake", "kebab"]}}, "snake")
    style = answers["style"]
    if "confirm" not in answers:
        return _ask("confirm", f"Rename {path} in {style} style?", "Boolean", True)
    if answers["confirm"] is not True:
        return _outcome({"type": "success", "content": f"kept {path}"})
    return _outcome({"type": "success", "content": f"renamed {path} ({style})"})


@server.resource("notes://readme", mime_type="text/markdown")
def readme() -> str:
    """The workspace's read-me."""
    return "# Notes\n\nZoë's notes 🌱\n"


@server.resource("notes://{name}")
def note(name: str) -> str:
    """One note by name."""
    return f"note {name}"


@server.prompt()
def review(path: str) -> str:
    """Ask for a review of a file."""
    return f"Please review {path}."


if __name__ == "__main__":
    server.run()
