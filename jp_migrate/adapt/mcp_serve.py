"""The `adapt --mcp` session: the SDK's server facing the client, its client driving the server.

See `adapt.mcp` for what passes through and what is converted.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import IO, Any

import anyio
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp_types.jsonrpc import CONNECTION_CLOSED
from mcp_types.version import is_version_at_least

from jp_migrate.adapt.mcp import (
    MAX_QUESTIONS,
    ServerGone,
    d31_meta,
    decode_state,
    encode_state,
    gone_result,
    say,
)
from jp_migrate.adapt.outcome_result import Question, convert
from jp_migrate.bridge.groups import spawned_by

INPUT_REQUIRED_VERSION = "2026-07-28"  # from here on, elicitation rides an input_required result
STOP_SECONDS = 0.5  # after a signal, how long the server has to exit before its group is killed
# Keys of a request's `_meta` that belong to this hop, not to the server behind it.
_HOP_KEYS = ("progressToken", "progress_token")


class StartFailed(Exception):
    """The D31 server did not start (or did not complete the handshake)."""


def _one_line(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    if isinstance(exc, MCPError):
        return f"{exc.message} ({exc.code})"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Front:
    """One adapter session: start the server, serve the client, stop the server."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.client: Client | None = None
        self.errlog: IO[str] | None = None
        self.shown = 0  # bytes of the server's stderr already passed on
        self.gone: str | None = None  # why the server is no longer there

    # ── the server's stderr: passed on to ours, its last line kept for messages ──

    def _pass_stderr(self) -> str:
        """Copy what the server wrote to stderr since last time onto ours; return its last line."""
        if self.errlog is None:
            return ""
        self.errlog.flush()
        fd = self.errlog.fileno()
        size = os.fstat(fd).st_size
        if size > self.shown:
            sys.stderr.write(os.pread(fd, size - self.shown, self.shown).decode("utf-8", "replace"))
            sys.stderr.flush()
            self.shown = size
        if size == 0:
            return ""
        tail = os.pread(fd, min(size, 4096), max(0, size - 4096)).decode("utf-8", "replace")
        lines = tail.strip().splitlines()
        return lines[-1] if lines else ""

    async def run(self) -> None:
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            self.errlog = errlog
            params = StdioServerParameters(
                command=self.command[0], args=self.command[1:], env=dict(os.environ)
            )
            client = Client(stdio_client(params, errlog=errlog), cache=None)
            try:
                await client.__aenter__()
            except BaseException as exc:
                said = self._pass_stderr()
                if isinstance(exc, KeyboardInterrupt):
                    raise
                raise StartFailed(
                    f"did not start: {_one_line(exc)}" + (f" (stderr: {said})" if said else "")
                ) from None
            self.client = client
            try:
                server = self._server(client)
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(self._on_signals, threading.get_native_id())
                    async with stdio_server() as (read, write):
                        options = server.create_initialization_options(NotificationOptions())
                        await server.run(read, write, options)
                    tasks.cancel_scope.cancel()  # the client went: stop watching for signals
            finally:
                self.client = None
                # A dead server has nothing left to close: its end was said at the call.
                with anyio.CancelScope(shield=True), suppress(Exception):
                    await client.__aexit__(None, None, None)
                self._pass_stderr()

    async def _on_signals(self, thread: int) -> None:
        """SIGTERM, SIGINT or SIGHUP ends the session at once: the signal is passed on to the
        server's process group (killed after STOP_SECONDS), then the adapter exits. Not by
        cancelling the session: the thread reading our stdin would keep it (and its host)
        waiting until the client closes it."""
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
            async for signum in signals:
                # Shielded: the server going away ends the session, which must not end this.
                with anyio.CancelScope(shield=True):
                    groups = spawned_by(thread)  # the server: the SDK starts it from this thread
                    for group in groups:
                        with suppress(ProcessLookupError, PermissionError):
                            os.killpg(group.id, signum)
                    await anyio.sleep(STOP_SECONDS)
                    for group in groups:
                        group.kill()
                    self._pass_stderr()
                    sys.stderr.flush()
                    os._exit(128 + signum)

    def _server(self, client: Client) -> Server[Any]:
        """A server offering what the D31 server offers, each request passed on to it."""
        caps = client.server_capabilities
        info = client.server_info
        handlers: dict[str, Any] = {}
        if caps.tools is not None:
            handlers["on_list_tools"] = self._relay(lambda s, p: s.list_tools(params=p))
            handlers["on_call_tool"] = self.call_tool
        if caps.resources is not None:
            handlers["on_list_resources"] = self._relay(lambda s, p: s.list_resources(params=p))
            handlers["on_list_resource_templates"] = self._relay(
                lambda s, p: s.list_resource_templates(params=p)
            )
            handlers["on_read_resource"] = self._relay(
                lambda s, p: s.read_resource(
                    str(p.uri),
                    input_responses=p.input_responses,
                    request_state=p.request_state,
                    meta=_forwarded(p.meta),
                    allow_input_required=True,
                )
            )
        if caps.prompts is not None:
            handlers["on_list_prompts"] = self._relay(lambda s, p: s.list_prompts(params=p))
            handlers["on_get_prompt"] = self._relay(
                lambda s, p: s.get_prompt(
                    p.name,
                    p.arguments,
                    input_responses=p.input_responses,
                    request_state=p.request_state,
                    meta=_forwarded(p.meta),
                    allow_input_required=True,
                )
            )
        if caps.completions is not None:
            handlers["on_completion"] = self._relay(
                lambda s, p: s.complete(
                    p.ref,
                    p.argument.model_dump(),
                    context_arguments=(p.context.arguments if p.context is not None else None),
                )
            )
        server: Server[Any] = Server(
            info.name if info is not None else "jp-migrate-adapt",
            version=info.version if info is not None else "",
            instructions=client.instructions,
            **handlers,
        )
        server.middleware = []  # no tracing span per request: this hop only relays
        return server

    def _relay(
        self, send: Callable[[Any, Any], Awaitable[Any]]
    ) -> Callable[[Any, Any], Awaitable[Any]]:
        """A handler passing the request on and the answer back, untouched."""

        async def handler(ctx: Any, params: Any) -> Any:
            session = self._session()
            try:
                return await send(session, params)
            except MCPError as exc:
                if exc.code == CONNECTION_CLOSED:
                    raise self._died(ctx.method, exc) from None
                raise  # the server's own JSON-RPC error, passed on as it came
            except (
                ServerGone,
                anyio.BrokenResourceError,
                anyio.ClosedResourceError,
                anyio.EndOfStream,
            ) as exc:
                raise self._died(ctx.method, exc) from None

        return handler

    def _session(self) -> Any:
        if self.client is None or self.gone is not None:
            raise ServerGone(self.gone or "it stopped")
        return self.client.session

    def _died(self, doing: str, exc: BaseException) -> MCPError:
        """One line on stderr for a call the server died under (or had died before)."""
        if self.gone is None and not isinstance(exc, ServerGone):
            said = self._pass_stderr()
            self.gone = "it exited" + (f" (stderr: {said})" if said else "")
            say(f"MCP server {self.command[0]!r}: {doing}: {_one_line(exc)}; {self.gone}")
        else:
            say(f"MCP server {self.command[0]!r}: {doing}: the server is gone ({self.gone})")
        return MCPError(CONNECTION_CLOSED, f"the MCP server is gone: {self.gone}")

    # ── tools/call: the D31 conversion ──

    async def call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        name, arguments = params.name, dict(params.arguments or {})
        meta = _forwarded(params.meta)
        answers = decode_state(params.request_state)
        ours = answers is not None
        answers = dict(answers or {})
        if ours:
            declined = _take_answers(params.input_responses or {}, answers)
            if declined is not None:
                return _declined(name, declined)
        responses = None if ours else params.input_responses
        state = None if ours else params.request_state
        for _ in range(MAX_QUESTIONS):
            try:
                session = self._session()
                result = await session.call_tool(
                    name,
                    arguments,
                    meta=d31_meta(meta, name, arguments, answers),
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                )
            except MCPError as exc:
                if exc.code != CONNECTION_CLOSED:
                    raise
                return self._gone(name, exc)
            except (
                ServerGone,
                anyio.BrokenResourceError,
                anyio.ClosedResourceError,
                anyio.EndOfStream,
            ) as exc:
                return self._gone(name, exc)
            self._pass_stderr()
            if not isinstance(result, types.CallToolResult):
                return result  # the server's own input_required (native): untouched
            converted = convert(result.model_dump(mode="json", by_alias=True, exclude_none=True))
            if converted is None:
                return result
            if converted.result is not None:
                return types.CallToolResult.model_validate(converted.result, by_alias=True)
            question = converted.question
            assert question is not None
            if _input_required(ctx):
                return types.InputRequiredResult(
                    input_requests={question.id: _elicit_request(question)},
                    request_state=encode_state(answers),
                )
            reply = await ctx.session.elicit_form(
                question.text, question.form(), related_request_id=ctx.request_id
            )
            declined = _take_answers({question.id: reply}, answers)
            if declined is not None:
                return _declined(name, declined)
            responses = state = None
        return types.CallToolResult(
            content=[
                types.TextContent(text=f"Tool '{name}' asked {MAX_QUESTIONS} questions in a row")
            ],
            is_error=True,
        )

    def _gone(self, name: str, exc: BaseException) -> types.CallToolResult:
        error = self._died(f"tools/call {name!r}", exc)
        reason = error.message
        return types.CallToolResult.model_validate(
            gone_result(name, reason, self._pass_stderr()), by_alias=True
        )


def _forwarded(meta: Any) -> dict[str, Any] | None:
    """The client's `_meta` for the server behind: its keys less this hop's own."""
    if not meta:
        return None
    kept = {k: v for k, v in dict(meta).items() if k not in _HOP_KEYS}
    return kept or None


def _input_required(ctx: Any) -> bool:
    version = getattr(ctx, "protocol_version", None)
    return isinstance(version, str) and is_version_at_least(version, INPUT_REQUIRED_VERSION)


def _elicit_request(question: Question) -> types.ElicitRequest:
    form = types.ElicitRequestFormParams(message=question.text, requested_schema=question.form())
    return types.ElicitRequest(params=form)


def _take_answers(responses: dict[str, Any], answers: dict[str, Any]) -> str | None:
    """Each accepted form's field into `answers`; the id of a question declined (or
    dismissed), else None."""
    for key, response in responses.items():
        if not isinstance(response, types.ElicitResult):
            continue
        content = response.content or {}
        if response.action != "accept" or key not in content:
            return key
        answers[key] = content[key]
    return None


def _declined(name: str, question: str) -> types.CallToolResult:
    """A question the user would not answer: the call ends, as an error the model can read."""
    text = f"Tool '{name}' needed an answer to {question!r}, which was declined."
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)
