#!/usr/bin/env python3
"""Todo MCP server (FastMCP). Tools answer with legacy JP Outcomes (RFD D31)."""
import json

from mcp.server.fastmcp import Context, FastMCP

TYPE, CONTENT, MESSAGE = "type", "content", "message"
TODO_FILE = "data/todo.json"

app = FastMCP("todo")


def load(path=TODO_FILE):
    with open(path) as fh:
        return json.load(fh)["items"]


def jp_call(ctx: Context) -> dict:
    """The computer.jp/tool entry of the request _meta, or {}."""
    meta = ctx.request_context.meta
    return getattr(meta, "computer.jp/tool", None) or {} if meta else {}


@app.tool(name="todo_next", description="The next open todo item.")
def todo_next(file: str = TODO_FILE) -> str:
    open_items = [i for i in load(file) if not i["done"]]
    if not open_items:
        return json.dumps({TYPE: "success", CONTENT: "all done!"})
    first = open_items[0]
    return json.dumps({TYPE: "success", CONTENT: f"#{first['id']} {first['text']} ({len(open_items) - 1} more)"})


@app.tool(name="todo_export", description="Export todos as markdown or CSV.")
def todo_export(ctx: Context, format: str = "") -> str:
    answers = jp_call(ctx).get("answers", {})
    fmt = format or answers.get("format")
    if not fmt:
        question = {"id": "format", "text": "Export format?",
                    "answer_type": {"Select": {"options": ["markdown", "csv"]}}, "default": "markdown"}
        return json.dumps({TYPE: "needs_input", "question": question})
    items = load()
    if fmt == "markdown":
        body = "\n".join(f"- [{'x' if i['done'] else ' '}] {i['text']}" for i in items)
    elif fmt == "csv":
        body = "id,text,done\n" + "\n".join(f"{i['id']},{i['text']},{str(i['done']).lower()}" for i in items)
    else:
        return json.dumps({TYPE: "error", MESSAGE: f"unsupported format {fmt}", "trace": ["markdown", "csv"],
                           "transient": False})
    return json.dumps({TYPE: "success", CONTENT: body})


if __name__ == "__main__":
    app.run(transport="stdio")
