"""Key/value MCP server written against the low-level mcp Server API.

Answers JP the D31 way: one text content holding a legacy Outcome.
"""
import asyncio
import json
import os

import mcp.types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.stdio import stdio_server

SEED = "data/kv"
STORE = "scratch/kv_mcp"

server = Server("kv")


def as_content(outcome: dict) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=json.dumps(outcome))]


def answers() -> dict:
    meta = server.request_context.meta
    extra = (meta.model_extra if meta is not None else None) or {}
    return (extra.get("computer.jp/tool") or {}).get("answers") or {}


def read(key):
    for d in (STORE, SEED):
        p = os.path.join(d, key)
        if os.path.isfile(p):
            return open(p, encoding="utf-8").read()
    return None


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    key = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
    return [
        types.Tool(name="kv_get", description="Read a key", inputSchema={"type": "object", "properties": {"key": key}, "required": ["key"]}),
        types.Tool(name="kv_put", description="Write a key (asks before overwriting)",
                   inputSchema={"type": "object", "properties": {"key": key, "value": {"type": "string"}}, "required": ["key", "value"]}),
    ]


@server.call_tool(validate_input=False)
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    key = arguments.get("key", "")
    if not key.isidentifier() or not key.islower():
        return as_content({"type": "error", "message": f"bad key {key!r}", "trace": [], "transient": False})
    if name == "kv_get":
        value = read(key)
        if value is None:
            return as_content({"type": "error", "message": f"{key} not found", "trace": [], "transient": False})
        return as_content({"type": "success", "content": value})
    if name == "kv_put":
        # only seeded keys are protected; our own writes can be replaced freely
        seeded = os.path.join(SEED, key)
        old = open(seeded, encoding="utf-8").read() if os.path.isfile(seeded) else None
        ans = answers()
        if old is not None and old != arguments["value"] and "overwrite" not in ans:
            return as_content({"type": "needs_input", "question": {
                "id": "overwrite", "text": f"{key} is {old!r}. Overwrite with {arguments['value']!r}?",
                "answer_type": "Boolean", "default": False}})
        if old is not None and ans.get("overwrite") is False:
            return as_content({"type": "success", "content": f"{key} unchanged ({old})"})
        os.makedirs(STORE, exist_ok=True)
        with open(os.path.join(STORE, key), "w", encoding="utf-8") as fh:
            fh.write(arguments["value"])
        return as_content({"type": "success", "content": f"{key} = {arguments['value']}"})
    return as_content({"type": "error", "message": f"unknown tool {name}", "trace": [], "transient": False})


async def main():
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, InitializationOptions(
            server_name="kv", server_version="0.1.0",
            capabilities=server.get_capabilities(NotificationOptions(), {})))


if __name__ == "__main__":
    asyncio.run(main())
