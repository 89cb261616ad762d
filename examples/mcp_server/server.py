"""An example MCP server for the jp-migrate bridge, built with the official `mcp` SDK.

    python3 server.py            # migrated: native MCP content (text, embedded resources, isError)
    python3 server.py --jp       # transitional: `Outcome` JSON as one text content (RFD D31)

`--jp`: Enable transitional JP tool protocol. Will be replaced by typed content
blocks per RFD 058.

In `--jp` mode a tool that needs confirmation answers with `Outcome::NeedsInput`
and reads the answer from `_meta["computer.jp/tool"].answers` on the retry; in
native mode it asks with an MCP 2026-07-28 `input_required` result carrying an
elicitation form and reads the answer from the retry's input responses.
`--record FILE` appends every call's request `_meta` as one JSON line (and a
line for a cancelled `wait_for_cancel`); `--log-start FILE` appends the server's
process id when it starts (tests count server starts).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import anyio
from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    EmbeddedResource,
    InputRequiredResult,
    TextContent,
    TextResourceContents,
)

JP_KEYS = ("computer.jp/tool", "computer.jp/context")

SNIPPETS = {
    "hello.py": ("text/x-python", "print('hello')\n"),
    "config.json": ("application/json", '{"debug": true}\n'),
}


def _parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--jp",
        action="store_true",
        help="Enable transitional JP tool protocol. Will be replaced by typed content blocks per RFD 058.",
    )
    parser.add_argument(
        "--record", metavar="FILE", help="append each call's request _meta to FILE (JSON lines)"
    )
    parser.add_argument(
        "--exit-at-start", action="store_true", help="fail before serving (for tests)"
    )
    parser.add_argument(
        "--log-start", metavar="FILE", help="append the process id to FILE on start"
    )
    return parser.parse_args(argv)


ARGS = _parse_args(sys.argv[1:])
server = MCPServer("jp-example")


def _request_meta(ctx: Context) -> dict[str, Any]:
    meta = ctx.request_context.meta or {}
    jp_meta = {k: meta[k] for k in JP_KEYS if k in meta}
    if ARGS.record:
        with open(ARGS.record, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(jp_meta, sort_keys=True) + "\n")
    return jp_meta


def _answers(ctx: Context) -> dict[str, Any]:
    tool = _request_meta(ctx).get("computer.jp/tool") or {}
    answers = tool.get("answers") if isinstance(tool, dict) else None
    return answers if isinstance(answers, dict) else {}


def _text(
    text: str, *, is_error: bool = False, meta: dict[str, Any] | None = None
) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)], is_error=is_error, _meta=meta
    )


def _outcome(outcome: dict[str, Any]) -> CallToolResult:
    """The D31 pattern: the whole `Outcome` as one text content."""
    return _text(json.dumps(outcome, ensure_ascii=False))


def _success(text: str) -> CallToolResult:
    return _outcome({"type": "success", "content": text}) if ARGS.jp else _text(text)


@server.tool()
def greet(name: str, ctx: Context) -> CallToolResult:
    """Say hello."""
    _request_meta(ctx)
    return _success(f"Hello, {name}!")


@server.tool()
def divide(a: float, b: float, ctx: Context) -> CallToolResult:
    """Divide a by b; dividing by zero is a (permanent) error."""
    _request_meta(ctx)
    if b == 0:
        message = f"cannot divide {a:g} by zero"
        if ARGS.jp:
            return _outcome({"type": "error", "message": message, "trace": [], "transient": False})
        return _text(message, is_error=True)
    return _success(f"{a / b:g}")


@server.tool()
def service_status(service: str, ctx: Context) -> CallToolResult:
    """Report a service's status; the `db` service is down (a transient error)."""
    _request_meta(ctx)
    if service == "db":
        message, trace = "service db is unreachable", ["connect: connection refused", "retry later"]
        if ARGS.jp:
            return _outcome(
                {"type": "error", "message": message, "trace": trace, "transient": True}
            )
        return _text(
            message, is_error=True, meta={"computer.jp/error": {"transient": True, "trace": trace}}
        )
    return _success(f"service {service} is up")


@server.tool()
def read_snippet(path: str, ctx: Context) -> CallToolResult:
    """Return a stored snippet as an embedded resource."""
    _request_meta(ctx)
    if path not in SNIPPETS:
        return _success(f"no snippet named {path}")
    mime, body = SNIPPETS[path]
    intro = f"Snippet {path}:"
    if ARGS.jp:
        # What the migrated result renders to (SPEC §2): the fenced resource after the intro.
        tag = {"text/x-python": "python", "application/json": "json"}[mime]
        return _success(f"{intro}\n\n```{tag}\n{body}```")
    resource = TextResourceContents(uri=f"snippet:///{path}", mime_type=mime, text=body)
    return CallToolResult(
        content=[
            TextContent(type="text", text=intro),
            EmbeddedResource(type="resource", resource=resource),
        ]
    )


@server.tool()
def delete_file(path: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    """Pretend to delete a file, after asking for confirmation."""
    question = f"Delete {path}?"
    if ARGS.jp:
        answers = _answers(ctx)
        if "confirm" not in answers:
            return _outcome(
                {
                    "type": "needs_input",
                    "question": {
                        "id": "confirm",
                        "text": question,
                        "answer_type": "Boolean",
                        "default": None,
                    },
                }
            )
        confirmed = answers["confirm"] is True
    else:
        _request_meta(ctx)
        response = (ctx.input_responses or {}).get("confirm")
        if not isinstance(response, ElicitResult):
            form = ElicitRequestFormParams(
                message=question,
                requested_schema={
                    "type": "object",
                    "properties": {"confirm": {"type": "boolean"}},
                    "required": ["confirm"],
                },
            )
            return InputRequiredResult(input_requests={"confirm": ElicitRequest(params=form)})
        confirmed = response.action == "accept" and bool((response.content or {}).get("confirm"))
    return _success(f"deleted {path}" if confirmed else f"kept {path}")


@server.tool()
def show_meta(ctx: Context) -> CallToolResult:
    """Echo the JP `_meta` keys this request carried, as JSON."""
    return _success(json.dumps(_request_meta(ctx), sort_keys=True))


@server.tool()
def d31_probe(case: str, ctx: Context) -> CallToolResult:
    """Fixed results that exercise RFD D31's unwrap guard, whatever the mode."""
    _request_meta(ctx)
    success = json.dumps({"type": "success", "content": "unwrapped"})
    if case == "valid":
        return _text(success)
    if case == "invalid":
        return _text('{"type": "success", "content": ')
    if case == "two":
        return CallToolResult(
            content=[TextContent(type="text", text=success), TextContent(type="text", text="more")]
        )
    if case == "is_error_success":
        return _text(success, is_error=True)
    raise MCPError(-32602, f"unknown probe case {case!r}")


@server.tool()
def rpc_error(code: int, ctx: Context) -> CallToolResult:
    """Fail the request with a JSON-RPC error of the given code."""
    _request_meta(ctx)
    raise MCPError(code, f"example failure with code {code}")


@server.tool()
def sleep(seconds: float, ctx: Context) -> CallToolResult:
    """Take `seconds` to answer."""
    _request_meta(ctx)
    time.sleep(seconds)
    return _success(f"slept {seconds:g}s")


@server.tool()
async def count(steps: int, ctx: Context) -> CallToolResult:
    """Count to `steps`, reporting progress and logging each step on the way."""
    _request_meta(ctx)
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
        await ctx.info(f"counted {step}")
    return _success(f"counted to {steps}")


@server.tool()
async def list_roots(ctx: Context) -> CallToolResult:
    """Name the client's roots: a request to the client in the middle of the call."""
    _request_meta(ctx)
    listed = await ctx.session.list_roots()
    return _success(", ".join(str(root.uri) for root in listed.roots) or "no roots")


def _note(path: str, entry: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


@server.tool()
async def wait_for_cancel(ctx: Context) -> CallToolResult:
    """Wait until the client cancels the call (`--record` notes the cancellation)."""
    _request_meta(ctx)
    try:
        await anyio.sleep(600)
    except anyio.get_cancelled_exc_class():
        if ARGS.record:
            _note(ARGS.record, {"cancelled": "wait_for_cancel"})
        raise
    return _success("never cancelled")


if __name__ == "__main__":
    if ARGS.exit_at_start:
        print("example server: refusing to start (--exit-at-start)", file=sys.stderr)
        sys.exit(3)
    if ARGS.log_start:
        with open(ARGS.log_start, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")
    server.run()
