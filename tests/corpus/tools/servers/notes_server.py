"""MCP server for the notes folder (FastMCP).

Follows RFD D31: every tool returns a legacy JP Outcome as its only text
content, and follow-up answers arrive in _meta["computer.jp/tool"]["answers"].
"""
import json
import os
import re

from mcp.server.fastmcp import Context, FastMCP

NOTES = os.path.join("data", "notes")
TRASH = os.path.join("scratch", "trash")

mcp = FastMCP("notes")


def jp_answers(ctx: Context) -> dict:
    meta = ctx.request_context.meta
    if meta is None:
        return {}
    tool = (meta.model_extra or {}).get("computer.jp/tool") or {}
    return tool.get("answers") or {}


def outcome(**fields) -> str:
    return json.dumps(fields)


@mcp.tool()
def search_notes(query: str) -> str:
    """Case-insensitive search through all notes; returns matching lines."""
    if len(query.strip()) < 2:
        return outcome(type="error", message="query must be at least 2 characters", trace=[], transient=False)
    rx = re.compile(re.escape(query), re.I)
    hits = []
    for name in sorted(os.listdir(NOTES)):
        with open(os.path.join(NOTES, name), encoding="utf-8") as fh:
            hits += [f"{name}:{i}: {line.rstrip()}" for i, line in enumerate(fh, 1) if rx.search(line)]
    if not hits:
        return outcome(type="success", content=f"no notes mention {query!r}")
    return outcome(type="success", content="\n".join(hits))


@mcp.tool()
def delete_note(title: str, ctx: Context) -> str:
    """Move a note to the trash (asks first)."""
    path = os.path.join(NOTES, f"{title}.md")
    if not os.path.isfile(path):
        return json.dumps({"type": "error", "message": f"no note named {title!r}",
                           "trace": sorted(os.listdir(NOTES)), "transient": False})
    answers = jp_answers(ctx)
    if "confirm" not in answers:
        with open(path, encoding="utf-8") as fh:
            preview = fh.read().strip()
        return json.dumps({"type": "needs_input", "question": {
            "id": "confirm", "text": f"Delete note '{title}'?", "pre_amble": preview,
            "answer_type": "Boolean", "default": False}})
    if not answers["confirm"]:
        return json.dumps({"type": "success", "content": f"kept {title}"})
    os.makedirs(TRASH, exist_ok=True)
    with open(path, encoding="utf-8") as src, open(os.path.join(TRASH, f"{title}.md"), "w", encoding="utf-8") as dst:
        dst.write(src.read())
    return json.dumps({"type": "success", "content": f"moved {title} to {TRASH} (original kept in data/)"})


if __name__ == "__main__":
    mcp.run()
