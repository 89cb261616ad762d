"""Call one MCP tool over stdio with the official SDK (RFD D31 request side, MCP 2026-07-28).

`McpSession` is an async context manager over the SDK's own: `stdio_client`
spawns the server and a `ClientSession` (bridge.sdk) talks to it, in the task
that enters it. Each request kind is one async method (`list_tools`, `call`,
`read_resource`), bounded by `--timeout`; every failure (the server does not
start, times out, answers with a JSON-RPC error) becomes one BridgeError. On the
way out the SDK asks the server to exit; a session left by an error, a timeout
or a cancellation kills the server's process group at once instead, and what the
server left in its group is killed either way (as a local tool's is).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import AsyncExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, TextIO, cast

import anyio

from jp_migrate.bridge.config import McpServer
from jp_migrate.bridge.edge import Stopped, innermost
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.forms import NO_MODEL, SAMPLING, Form, Forms, during_call
from jp_migrate.bridge.groups import Group, spawned_by
from jp_migrate.contract.jsontext import TOO_DEEP, too_deep

if TYPE_CHECKING:
    from anyio.abc import TaskStatus
    from mcp import ClientSession, MCPError
    from mcp.client.session import ClientRequestContext
    from mcp_types import ElicitRequestParams, ElicitResult, RequestParamsMeta, Tool

# JSON-RPC 2.0's reserved error codes (seed 002).
RPC_ERRORS = {
    -32700: "parse error",
    -32600: "invalid request",
    -32601: "method not found",
    -32602: "invalid params",
    -32603: "internal error",
}
DEFAULT_TIMEOUT = 60.0  # an MCP call never waits forever


def jp_meta(context: Mapping[str, Any]) -> dict[str, Any] | None:
    """The D31 `_meta` keys from the tool context; None (omitted) when answers and options are empty."""
    tool = context["tool"]
    if not tool["answers"] and not tool["options"]:
        return None
    ctx = context["context"]
    return {
        "computer.jp/tool": {
            "name": tool["name"],
            "arguments": tool["arguments"],
            "answers": tool["answers"],
            "options": tool["options"],
        },
        "computer.jp/context": {"action": ctx["action"], "root": ctx["root"]},
    }


@dataclass
class Pending:
    """An open `input_required` round: its forms, and the state to echo. `resend`: the
    URL elicitations of a -32042 error, after which the call is simply made again."""

    forms: Forms
    request_state: str | None
    resend: bool = False


@dataclass
class CallResult:
    result: dict[str, Any] | None  # the tools/call result as wire JSON, when complete
    pending: Pending | None  # or the input it needs first
    stderr: str = ""  # what the server wrote to stderr during the call
    # A resource_link item's index → the contents `resources/read` gave for it (RFD 058 side)
    links: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


# Answers one elicitation request asked during a call: the ElicitResult to send, or a
# BridgeError (nobody to answer: the server is told `cancel`, the run fails).
Elicit = Callable[[Form], Awaitable["ElicitResult"]]
OnProgress = Callable[[float, float | None, str | None], None]  # progress, total, message


@dataclass
class _Request:
    """The request in flight: who answers what the server asks meanwhile, and what it was told."""

    elicit: Elicit | None
    scope: anyio.CancelScope  # its --timeout
    notes: list[str] = field(default_factory=list)  # warnings (a refused sampling)
    refused: BridgeError | None = None  # a question nobody could answer: the request fails
    asking: anyio.Lock = field(default_factory=anyio.Lock)  # one question at a time


class _OneLineWarnings(logging.Handler):
    """The SDK's own log (a server line that is not JSON-RPC, …) as one-line warnings, no traceback."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        first = str(exc).strip().splitlines()[0] if exc is not None and str(exc).strip() else ""
        detail = f": {first}" if first else ""
        sys.stderr.write(f"warning: MCP SDK: {record.getMessage()}{detail}\n")


def _sdk_logs_one_line() -> None:
    logger = logging.getLogger("mcp")
    if not any(isinstance(h, _OneLineWarnings) for h in logger.handlers):
        logger.addHandler(_OneLineWarnings())
        logger.propagate = False


def _one_line(exc: BaseException) -> str:
    """An exception as one line: the SDK's validation of what a server sent names the
    first field that is wrong (pydantic's own text is one paragraph per union member)."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        errors = exc.errors()
        first = errors[0] if errors else {"loc": (), "msg": str(exc)}
        where = ".".join(str(part) for part in first["loc"])
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"the server sent an invalid {exc.title}: {where}: {first['msg']}{more}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _cancel() -> ElicitResult:
    from mcp_types import ElicitResult

    return ElicitResult(action="cancel")


def _url_elicitations(exc: MCPError) -> Forms | None:
    """The URL elicitations a -32042 error (URL elicitation required) asks for, as forms
    (`url`, `url2`, …); None for any other error."""
    from mcp_types import URL_ELICITATION_REQUIRED, ElicitRequestURLParams
    from pydantic import ValidationError

    if exc.code != URL_ELICITATION_REQUIRED:
        return None
    data = exc.data if isinstance(exc.data, Mapping) else {}
    items = data.get("elicitations")
    if not isinstance(items, list) or not items:
        return None
    try:
        params = [ElicitRequestURLParams.model_validate(item) for item in items]
    except ValidationError:
        return None
    return Forms.of({("url" if n == 1 else f"url{n}"): p for n, p in enumerate(params, 1)})


class McpSession:
    """One server process and the SDK client talking to it (`async with` it, in one task).

    `rfd058`: the host is RFD 058's: it declares form and URL elicitation, and
    reads resource links through `resources/read`. The legacy host declares no
    client capability, as JP does today. Neither declares sampling: the bridge has
    no model (a sampling request that comes anyway is refused, saying so).
    """

    def __init__(
        self,
        server: McpServer,
        root: Path,
        *,
        timeout: float | None = None,
        rfd058: bool = True,
    ) -> None:
        self.server = server
        self.root = root
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self.rfd058 = rfd058
        self._stack = AsyncExitStack()
        self._errlog: TextIO | None = None  # the server's stderr
        self._session: ClientSession  # from `async with` on
        self._groups: list[Group] = []  # the server's process group (Linux), once spawned
        self._tools: frozenset[str] | None = None
        self._request: _Request | None = None  # the request in flight
        self._hung = False  # a request timed out: the server is killed, not asked to exit

    @property
    def label(self) -> str:
        return f"MCP server {self.server.name!r}"

    def stderr(self, since: int = 0) -> str:
        """What the server wrote to stderr (from byte `since`). Read with pread: the server
        writes through the same open file, whose offset a seek would move under it."""
        size = self._stderr_size()
        if size <= since:
            return ""
        assert self._errlog is not None
        return os.pread(self._errlog.fileno(), size - since, since).decode("utf-8", "replace")

    def _stderr_size(self) -> int:
        if self._errlog is None or self._errlog.closed:
            return 0
        return os.fstat(self._errlog.fileno()).st_size

    def _fail(self, exc: BaseException, doing: str) -> BridgeError:
        from mcp import MCPError

        exc = innermost(exc)
        if isinstance(exc, BridgeError):
            return exc
        tail = self.stderr().strip().splitlines()
        said = f" (stderr: {tail[-1]})" if tail else ""
        if isinstance(exc, TimeoutError):
            start = f"{self.server.startup_timeout or 0:g}s (startup_timeout_secs)"
            reason = (
                f"{doing} timed out after {start if doing == 'start' else f'{self.timeout:g}s'}"
            )
        elif isinstance(exc, MCPError) and exc.code in RPC_ERRORS:
            kind = RPC_ERRORS[exc.code]
            reason = f"{doing} failed with JSON-RPC {kind} {exc.code}: {exc.message}"
        elif isinstance(exc, MCPError):  # SDK-side codes (-32000 "Connection closed", …)
            reason = f"{doing} failed: {exc.message} ({exc.code})"
        elif isinstance(exc, OSError) and doing == "start":
            return BridgeError(
                f"cannot start {self.server.command!r}: {exc.strerror or exc}", source=self.label
            )
        else:
            reason = f"{doing} failed: {_one_line(exc)}"
        return BridgeError(reason + said, source=self.label)

    async def __aenter__(self) -> Self:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        from jp_migrate.bridge.sdk import Session, handshake

        _sdk_logs_one_line()
        self._errlog = self._stack.enter_context(
            tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 - closed with the stack
        )
        params = StdioServerParameters(
            command=self.server.command,
            args=list(self.server.args),
            env={**os.environ, **self.server.env},
            cwd=str(self.root),
        )
        try:
            streams = await self._stack.enter_async_context(stdio_client(params, self._errlog))
            # Found at once, so that nothing a failed or interrupted start left outlives it.
            self._groups = spawned_by(threading.get_native_id(), self._errlog.fileno())
            session = Session(
                streams,
                elicitation_callback=self._on_elicit if self.rfd058 else None,
                on_sampling=self._no_model,
            )
            await self._stack.enter_async_context(session)
            # No read timeout of the SDK's own: the start is bounded by the server's
            # startup_timeout_secs from its spawn, as in JP; each request by --timeout.
            with anyio.fail_after(self.server.startup_timeout):
                await handshake(session)
        except BaseException as exc:  # noqa: BLE001 - every start failure is one line
            # (read while the stderr it quotes is there; a cancelled start is not waited for)
            error = self._fail(exc, "start") if isinstance(exc, Exception) else exc
            await self._close(kill=True)
            raise error from None
        self._session = session
        return self

    async def __aexit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        # Cancelled (a call in flight abandoned), or after a timeout: the server is killed,
        # not given the SDK's seconds to exit.
        cancelled = kind is not None and not issubclass(kind, Exception)
        await self._close(kill=cancelled or self._hung)

    async def _close(self, *, kill: bool) -> None:
        if kill:
            self._kill()
        try:  # a broken server's close must not hide the error on its way
            with suppress(Exception):
                await self._stack.aclose()
        finally:
            self._kill()  # the server is stopped by now; what it started goes too

    def _kill(self) -> None:
        for group in self._groups:
            group.kill()

    @contextmanager
    def _bounded(self, doing: str, elicit: Elicit | None = None) -> Iterator[_Request]:
        """One request in flight, bounded by --timeout; what the server asks meanwhile goes
        to `elicit`; any failure is one BridgeError."""
        try:
            with anyio.fail_after(self.timeout) as scope:
                request = self._request = _Request(elicit, scope)
                yield request
        except TimeoutError:
            self._hung = True
            raise self._fail(TimeoutError(), doing) from None
        except BridgeError:
            raise
        except Exception as exc:  # noqa: BLE001 - one line, whatever the SDK raised
            raise self._fail(exc, doing) from None
        finally:
            self._request = None
        if request.refused is not None:
            raise request.refused

    def _no_model(self) -> None:
        if self._request is not None:
            self._request.notes.append(
                f"the server asked for a model's completion ({SAMPLING}): refused, {NO_MODEL}"
            )

    async def _on_elicit(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult:
        """An `elicitation/create` request during a request, answered by its `elicit` (the
        same answers, checks and prompts as any question), one question at a time."""
        from mcp_types import ElicitResult

        request = self._request
        if request is None:
            return _cancel()
        try:
            form = during_call(params)
        except BridgeError as exc:
            request.notes.append(str(exc))
            return ElicitResult(action="decline")
        async with request.asking:
            if request.elicit is None and request.refused is None:
                request.refused = BridgeError(
                    "the server asked a question outside a tool call", source=self.label
                )
            if request.refused is not None or request.elicit is None:
                return _cancel()
            scope = request.scope
            # The user's time to answer is not the server's: the deadline waits meanwhile.
            left, scope.deadline = scope.deadline - anyio.current_time(), math.inf
            try:
                return await request.elicit(form)
            except BridgeError as exc:
                request.refused = exc
                return _cancel()
            except Stopped:  # a signal at the prompt: the server hears "cancel", the run ends
                return _cancel()
            finally:
                scope.deadline = anyio.current_time() + left

    async def tools(self) -> frozenset[str]:
        """The names of the tools the server offers (`tools/list`, every page), asked once.

        JP offers the model only the tools a server lists; a configured name it
        does not list cannot run, which `tools/call` may not say plainly (many
        servers answer with an ordinary error result).
        """
        if self._tools is None:
            self._tools = frozenset(tool.name for tool in await self.list_tools())
        return self._tools

    async def list_tools(self) -> list[Tool]:
        """The server's tool definitions (`tools/list`, every page)."""
        from mcp_types import PaginatedRequestParams

        tools: list[Tool] = []
        cursor: str | None = None
        with self._bounded("tools/list"):
            while True:
                params = PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await self._session.list_tools(params=params)
                tools += page.tools
                cursor = page.next_cursor
                if not cursor:
                    return tools

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        meta: dict[str, Any] | None,
        pending: Pending | None = None,
        answers: Mapping[str, Any] | None = None,
        elicit: Elicit | None = None,
        progress: OnProgress | None = None,
    ) -> CallResult:
        """One `tools/call`; with `pending`, the retry carrying the answers as input responses.

        `elicit` answers the questions the server asks during the call; `progress`
        is told its progress notifications.
        """
        from mcp import MCPError
        from mcp_types import InputRequiredResult

        if pending is None and name not in await self.tools():
            offered = ", ".join(sorted(await self.tools())) or "none"
            raise BridgeError(f"has no tool {name!r} (it offers: {offered})", source=self.label)
        responses: dict[str, Any] | None = None
        state: str | None = None
        if pending is not None and pending.resend:
            replies = pending.forms.replies(answers or {}).items()
            declined = [key for key, reply in replies if reply.action != "accept"]
            if declined:
                raise BridgeError(
                    f"tools/call {name!r} needs the URL elicitation {declined[0]!r} "
                    "completed first, and it was declined",
                    source=self.label,
                )
        elif pending is not None:
            responses = pending.forms.replies(answers or {})
            state = pending.request_state

        told = progress

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if told is not None:
                told(progress, total, message)

        start = self._stderr_size()
        with self._bounded(f"tools/call {name!r}", elicit) as request:
            try:
                result = await self._session.call_tool(
                    name,
                    dict(arguments),
                    meta=cast("RequestParamsMeta | None", meta),  # the D31 keys: JSON
                    input_responses=responses,
                    request_state=state,
                    allow_input_required=True,
                    progress_callback=on_progress if progress is not None else None,
                )
            except MCPError as exc:
                required = self.rfd058 and _url_elicitations(exc)
                if not required:
                    raise
                pending = Pending(required, None, resend=True)  # -32042: open these, call again
                return CallResult(None, pending, self.stderr(start), warnings=request.notes)
        warnings = request.notes
        if isinstance(result, InputRequiredResult):
            pending = Pending(Forms.of(dict(result.input_requests or {})), result.request_state)
            return CallResult(None, pending, self.stderr(start), warnings=warnings)
        wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        if too_deep({"result": wire}):  # the message JP's serde_json reads holds the result
            raise BridgeError(f"tools/call {name!r}: the result is {TOO_DEEP}", source=self.label)
        links: dict[int, list[dict[str, Any]]] = {}
        if self.rfd058:
            links, unread = await self._read_links(wire.get("content") or [])
            warnings += unread
        return CallResult(wire, None, self.stderr(start), links, warnings)

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """The contents `resources/read` gives for `uri`, as wire JSON (empty: none)."""
        with self._bounded("resources/read"):
            result = await self._session.read_resource(uri)
        return [
            c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in result.contents
        ]

    async def _read_links(
        self, items: list[Any]
    ) -> tuple[dict[int, list[dict[str, Any]]], list[str]]:
        """Each `resource_link` item read through `resources/read` (RFD 058: JP handles
        links through the MCP client), when the server offers resources; a link that
        cannot be read stays a reference, with a warning saying why."""
        links: dict[int, list[dict[str, Any]]] = {}
        warnings: list[str] = []
        capabilities = self._session.server_capabilities
        if capabilities is None or capabilities.resources is None:
            return links, warnings
        for index, item in enumerate(items):
            if not isinstance(item, dict) or item.get("type") != "resource_link":
                continue
            uri = item.get("uri")
            try:
                contents = await self.read_resource(str(uri))
                why = "" if contents else "resources/read returned no contents"
            except BridgeError as exc:
                contents, why = [], exc.reason
            if why:  # the link stays a reference
                warnings.append(f"content[{index}]: resource_link {uri} kept as a reference: {why}")
            else:
                links[index] = contents
        return links, warnings


class SessionPool:
    """Open MCP sessions kept for reuse, one per server, root, timeout and host (as JP keeps
    its servers); the two hosts never share one (they declare different capabilities).

    Each session is opened and closed by a task of the pool's own (anyio's scopes
    close in the task that opened them), and used from any task in the pool's
    `async with`. Leaving the pool asks its servers to exit; leaving it by an error
    or a cancellation kills them.
    """

    def __init__(self) -> None:
        self._open: dict[tuple[object, ...], tuple[McpSession, anyio.Event]] = {}

    async def __aenter__(self) -> Self:
        self._keepers = anyio.create_task_group()
        await self._keepers.__aenter__()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        for _, leave in self._open.values():
            leave.set()
        return await self._keepers.__aexit__(kind, exc, traceback)

    async def session(
        self, server: McpServer, root: Path, timeout: float | None, *, rfd058: bool = True
    ) -> McpSession:
        env = tuple(sorted(server.env.items()))
        key = (
            server.name, server.command, server.args, env, server.startup_timeout, str(root),
            timeout, rfd058,
        )  # fmt: skip
        if key not in self._open:
            session, leave = McpSession(server, root, timeout=timeout, rfd058=rfd058), anyio.Event()
            await self._keepers.start(_keep, session, leave)
            self._open[key] = session, leave
        return self._open[key][0]

    def discard(self, session: McpSession) -> None:
        """Never hand `session` out again, and close it (a timed-out or broken server is
        not reused)."""
        for key, (kept, leave) in list(self._open.items()):
            if kept is session:
                del self._open[key]
                leave.set()


async def _keep(session: McpSession, leave: anyio.Event, *, task_status: TaskStatus[None]) -> None:
    """Open `session` and keep it until `leave` is set."""
    async with session:
        task_status.started()
        await leave.wait()
