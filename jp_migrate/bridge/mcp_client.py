"""Call one MCP tool over stdio with the official SDK (RFD D31 request side, MCP 2026-07-28).

`McpSession` is a synchronous facade: the SDK's async client lives in a
blocking portal thread for as long as the session is open, so an
`input_required` retry reaches the same server process. Every failure (the
server does not start, times out, answers with a JSON-RPC error) becomes one
BridgeError; the SDK's stdio transport kills the server's process tree on close
when the server does not exit itself, and the session then kills what the
server left in its process group (as a local tool's are).
"""

from __future__ import annotations

import logging
import os
import queue
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping
from concurrent.futures import Future, InvalidStateError
from contextlib import ExitStack, asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol, Self

from jp_migrate.bridge import stop
from jp_migrate.bridge.config import McpServer
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.forms import NO_MODEL, SAMPLING, Form, Forms, during_call
from jp_migrate.bridge.groups import Group, spawned_by
from jp_migrate.contract.normalized import NormalizedQuestion

# JSON-RPC 2.0's reserved error codes (seed 002).
RPC_ERRORS = {
    -32700: "parse error",
    -32600: "invalid request",
    -32601: "method not found",
    -32602: "invalid params",
    -32603: "internal error",
}
DEFAULT_TIMEOUT = 60.0  # an MCP call never waits forever
START_POLL_SECONDS = 0.01  # how often a starting server's process group is looked for
START_KILL_AFTER = 0.25  # seconds past startup_timeout_secs a hung server is killed


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

    @property
    def questions(self) -> list[NormalizedQuestion]:
        return self.forms.questions

    @property
    def optional(self) -> frozenset[str]:
        return self.forms.optional


@dataclass
class CallResult:
    result: dict[str, Any] | None  # the tools/call result as wire JSON, when complete
    pending: Pending | None  # or the input it needs first
    stderr: str = ""  # what the server wrote to stderr during the call
    # A resource_link item's index → the contents `resources/read` gave for it (RFD 058 side)
    links: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


class Elicit(Protocol):
    """Answers one elicitation request asked during a call: the ElicitResult to send, or
    a BridgeError (nobody to answer: the server is told `cancel`, the run fails)."""

    def __call__(self, form: Form) -> Any: ...


class OnProgress(Protocol):
    def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


def _error_text(exc: BaseException) -> BaseException:
    """The one meaningful exception inside the task-group wrappers anyio adds."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


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


_SESSIONS: weakref.WeakSet[McpSession] = weakref.WeakSet()
_SESSIONS_GUARD = threading.Lock()


def _cancel_calls() -> None:
    with _SESSIONS_GUARD:
        sessions = list(_SESSIONS)
    for session in sessions:
        session.abort()


stop.on_stop(_cancel_calls)


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


def _cancel() -> Any:
    from mcp_types import ElicitResult

    return ElicitResult(action="cancel")


def _settle(reply: Future[Any], value: Any) -> None:
    """Answer the server's waiting request, unless it is gone (the call was cancelled)."""
    with suppress(InvalidStateError):
        reply.set_result(value)


def _url_elicitations(exc: BaseException) -> Forms | None:
    """The URL elicitations a -32042 error (URL elicitation required) asks for, as forms
    (`url`, `url2`, …); None for any other error."""
    from mcp import MCPError
    from mcp_types import URL_ELICITATION_REQUIRED, ElicitRequestURLParams
    from pydantic import ValidationError

    exc = _error_text(exc)
    if not isinstance(exc, MCPError) or exc.code != URL_ELICITATION_REQUIRED:
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
    """One server process and the SDK client talking to it.

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
        self._stack = ExitStack()
        self._portal: Any = None
        self._inbox: Any = None
        self._errlog: IO[str] | None = None
        self._tools: frozenset[str] | None = None
        self._resources = False  # the server offers resources (resources/read)
        self._life: Any = None  # the CancelScope of the whole client task (start-up included)
        self._connecting: Any = None  # the CancelScope bounding the start by startup_timeout_secs
        self._spawned_at: float | None = None  # time.monotonic() when the server was spawned
        self._aborted = False  # abort() came, perhaps before the task made `_life`
        self._current: Future[Any] | None = None  # the caller waiting on the call in flight
        self._call_scope: Any = None  # the CancelScope bounding the call in flight by --timeout
        # What the server asks during a call, for the calling thread to answer: (form, reply)
        self._asks: queue.SimpleQueue[tuple[Form, Future[Any]] | None] = queue.SimpleQueue()
        self._notes: list[str] = []  # warnings about the call in flight (a refused sampling)
        self._groups: list[Group] = []  # the server's process group (Linux), once started
        self._hung = False  # a call timed out: the server is killed, not asked to exit
        with _SESSIONS_GUARD:
            _SESSIONS.add(self)

    @property
    def label(self) -> str:
        return f"MCP server {self.server.name!r}"

    def stderr(self, since: int = 0) -> str:
        """What the server wrote to stderr (from byte `since`). Read with pread: the server
        writes through the same open file, whose offset a seek would move under it."""
        if self._errlog is None or self._errlog.closed:
            return ""
        fd = self._errlog.fileno()
        size = self._stderr_size()
        if size <= since:
            return ""
        return os.pread(fd, size - since, since).decode("utf-8", "replace")

    def _stderr_size(self) -> int:
        if self._errlog is None or self._errlog.closed:
            return 0
        return os.fstat(self._errlog.fileno()).st_size

    def _start_expired(self) -> bool:
        """startup_timeout_secs have passed since the server was spawned."""
        startup = self.server.startup_timeout
        spawned = self._spawned_at
        return startup is not None and spawned is not None and time.monotonic() >= spawned + startup

    def _fail(self, exc: BaseException, doing: str) -> BridgeError:
        from mcp import MCPError

        exc = _error_text(exc)
        if isinstance(exc, BridgeError):
            return exc
        tail = self.stderr().strip().splitlines()
        said = f" (stderr: {tail[-1]})" if tail else ""
        # Past the start's deadline a closed connection is the kill that ended it, not its cause.
        if doing == "start" and (isinstance(exc, TimeoutError) or self._start_expired()):
            limit = f"{self.server.startup_timeout or 0:g}s (startup_timeout_secs)"
            return BridgeError(f"start timed out after {limit}{said}", source=self.label)
        if isinstance(exc, TimeoutError):
            return BridgeError(
                f"{doing} timed out after {self.timeout:g}s{said}", source=self.label
            )
        if isinstance(exc, MCPError) and exc.code in RPC_ERRORS:
            kind = RPC_ERRORS[exc.code]
            return BridgeError(
                f"{doing} failed with JSON-RPC {kind} {exc.code}: {exc.message}{said}",
                source=self.label,
            )
        if isinstance(exc, MCPError):
            # SDK-side codes (-32000 "Connection closed", …): the server went away or misbehaved.
            return BridgeError(
                f"{doing} failed: {exc.message} ({exc.code}){said}", source=self.label
            )
        if isinstance(exc, OSError) and doing == "start":
            return BridgeError(
                f"cannot start {self.server.command!r}: {exc.strerror or exc}", source=self.label
            )
        detail = _one_line(exc)
        return BridgeError(f"{doing} failed: {detail}{said}", source=self.label)

    def __enter__(self) -> Self:
        # The SDK is loaded before the server is spawned (it takes a second or two on a
        # busy machine): startup_timeout_secs is the server's time, not the import's.
        import mcp.client.stdio  # noqa: F401
        from anyio.from_thread import start_blocking_portal

        if stop.STOPPED.is_set():
            raise KeyboardInterrupt
        _sdk_logs_one_line()
        self._errlog = self._stack.enter_context(
            tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
        )
        self._portal = self._stack.enter_context(start_blocking_portal())
        started = threading.Event()
        watcher = threading.Thread(
            target=self._watch_start,
            args=(self._portal.call(threading.get_native_id), started),
            name="jp-migrate-mcp-start",
            daemon=True,
        )
        watcher.start()
        try:
            try:
                _, self._inbox = self._portal.start_task(self._own_client)
            finally:
                started.set()
                watcher.join()  # the server's group is known from here on
        except BaseException as exc:  # noqa: BLE001 - every start failure is one line
            if isinstance(exc, KeyboardInterrupt) or stop.STOPPED.is_set():
                self.abort()  # a server still starting is not waited for
                self._stack.close()
                self._kill()
                raise KeyboardInterrupt from None
            error = self._fail(exc, "start")
            self._stack.close()
            self._kill()  # what a server that failed to start left behind
            raise error from None
        return self

    def _watch_start(self, portal_thread: int, started: threading.Event) -> None:
        """While the server starts (in a thread of its own): find its process group (the
        children of the portal's thread, which spawns it) as soon as it is spawned, so a
        failed or interrupted start leaves nothing behind, and kill it when the start
        outlives startup_timeout_secs from its spawn (the SDK would wait seconds more for
        a hung server to exit)."""
        startup = self.server.startup_timeout
        while not started.wait(START_POLL_SECONDS):
            if not self._groups:
                self._groups = spawned_by(portal_thread)
            spawned = self._spawned_at
            # A moment after the start's own deadline, so the start still ends as a timeout.
            if (
                startup is not None
                and spawned is not None
                and time.monotonic() >= spawned + startup + START_KILL_AFTER
            ):
                self._kill()
                return
        if not self._groups:
            self._groups = spawned_by(portal_thread)

    @asynccontextmanager
    async def _spawning(self, transport: Any) -> Any:
        """The SDK's stdio transport, entered (the server spawned) with the start's
        deadline counted from this moment."""
        import anyio

        startup = self.server.startup_timeout
        self._spawned_at = time.monotonic()
        if startup is not None and self._connecting is not None:
            self._connecting.deadline = anyio.current_time() + startup
        async with transport as streams:
            yield streams

    async def _own_client(self, *, task_status: Any) -> None:
        """One task enters, uses and leaves the SDK client (anyio scopes must not cross tasks)."""
        import math

        import anyio
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        params = StdioServerParameters(
            command=self.server.command,
            args=list(self.server.args),
            env={**os.environ, **self.server.env},
            cwd=str(self.root),
        )
        # No read timeout of the SDK's own: it would bound the start-up handshake by
        # `--timeout` (the start is bounded by the server's startup_timeout_secs, as
        # in JP, from its spawn: `_spawning`); each call is bounded by `--timeout` below.
        client = Client(
            self._spawning(stdio_client(params, errlog=self._errlog)),
            cache=None,
            elicitation_callback=self._on_elicit if self.rfd058 else None,
        )
        send, receive = anyio.create_memory_object_stream[tuple[Any, Future[Any]]](0)
        self._life = anyio.CancelScope()
        if self._aborted:  # set before `_life` existed (abort reads `_life` after setting it)
            self._life.cancel()
        try:
            with self._life, anyio.CancelScope() as connecting:
                self._connecting = connecting
                async with client:
                    connecting.deadline = math.inf
                    self._connected(client)
                    task_status.started(send)
                    async with receive:
                        async for work, future in receive:
                            self._current = future
                            try:
                                with anyio.fail_after(self.timeout) as self._call_scope:
                                    future.set_result(await work(client))
                            except TimeoutError as exc:
                                self._hung = True
                                future.set_exception(exc)
                            except Exception as exc:  # noqa: BLE001 - to the caller's thread
                                future.set_exception(exc)
                            self._current = self._call_scope = None
        finally:
            self._kill()  # the server is stopped by now; what it started goes too
            current, self._current = self._current, None
            if current is not None and not current.done():  # cancelled (abort) mid-call
                current.set_exception(KeyboardInterrupt())
        if connecting.cancelled_caught:
            raise TimeoutError

    def _connected(self, client: Any) -> None:
        capabilities = client.session.server_capabilities
        self._resources = capabilities is not None and capabilities.resources is not None
        # A sampling request the server sends anyway (none is declared) is refused saying
        # why; the SDK's own refusal says only "not supported". Set after the handshake,
        # so the capability stays undeclared.
        client.session._sampling_callback = self._no_model

    async def _no_model(self, context: Any, params: Any) -> Any:
        from mcp_types import INVALID_REQUEST, ErrorData

        self._notes.append(
            f"the server asked for a model's completion ({SAMPLING}): refused, {NO_MODEL}"
        )
        return ErrorData(code=INVALID_REQUEST, message=f"{NO_MODEL}: {SAMPLING} cannot be answered")

    async def _on_elicit(self, context: Any, params: Any) -> Any:
        """An `elicitation/create` request during a call: answered by the calling thread
        (where the prompts are), while the call's --timeout waits."""
        import asyncio

        import anyio
        from mcp_types import ElicitResult

        try:
            form = during_call(params)
        except BridgeError as exc:
            self._notes.append(str(exc))
            return ElicitResult(action="decline")
        reply: Future[Any] = Future()
        self._asks.put((form, reply))
        asked = anyio.current_time()
        try:
            return await asyncio.wrap_future(reply)
        finally:
            scope = self._call_scope
            if scope is not None:  # the user's time to answer is not the server's
                scope.deadline += anyio.current_time() - asked

    def _submit(self, work: Any, elicit: Elicit | None = None) -> Any:
        """Run `work(client)` on the portal; meanwhile, answer what the server asks (in
        this thread, where a prompt belongs and Ctrl-C arrives)."""
        future: Future[Any] = Future()
        future.add_done_callback(lambda _: self._asks.put(None))
        self._portal.call(self._inbox.send, (work, future))
        refused: BridgeError | None = None
        while (item := self._asks.get()) is not None:
            form, reply = item
            try:
                if refused is not None or elicit is None:
                    raise refused or BridgeError(
                        "the server asked a question outside a tool call", source=self.label
                    )
                _settle(reply, elicit(form))
            except BridgeError as exc:
                refused = refused or exc
                _settle(reply, _cancel())
            except BaseException:
                # Ctrl-C at the prompt: the server hears "cancel" (a KeyboardInterrupt must
                # not reach the event loop); the caller's exit then aborts the session.
                _settle(reply, _cancel())
                raise
        result = future.result()
        if refused is not None:
            raise refused
        return result

    def _kill(self) -> None:
        for group in self._groups:
            group.kill()

    def abort(self) -> None:
        """End everything (from any thread): start-up, the call in flight, the server (killed
        at once: the SDK's shutdown would give it seconds to exit)."""
        self._aborted = True
        life = self._life
        if life is not None and self._portal is not None:
            with suppress(Exception):  # the portal may be closing already
                self._portal.call(life.cancel)
        self._kill()  # after the cancel: the call in flight ends as interrupted, not as broken

    def __exit__(self, *exc: object) -> None:
        if self._current is not None:  # a call in flight, abandoned by its caller: not waited for
            self.abort()
        elif self._hung:  # a call timed out: a hung server is killed, not waited for
            self._kill()
        inbox, self._inbox = self._inbox, None
        try:
            if inbox is not None:
                self._portal.call(inbox.aclose)
        finally:
            # Closing a broken server must not hide the error that is already on its way.
            with suppress(Exception):
                self._stack.close()

    def tools(self) -> frozenset[str]:
        """The names of the tools the server offers (`tools/list`, every page), asked once.

        JP offers the model only the tools a server lists; a configured name it
        does not list cannot run, which `tools/call` may not say plainly (many
        servers answer with an ordinary error result).
        """
        if self._tools is None:
            self._tools = frozenset(tool.name for tool in self.list_tools())
        return self._tools

    def list_tools(self) -> list[Any]:
        """The server's tool definitions (`tools/list`, every page)."""
        from mcp.types import PaginatedRequestParams

        async def list_all(client: Any) -> list[Any]:
            tools: list[Any] = []
            cursor: str | None = None
            while True:
                params = PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await client.session.list_tools(params=params)
                tools += page.tools
                cursor = page.next_cursor
                if not cursor:
                    return tools

        try:
            return self._submit(list_all)  # type: ignore[no-any-return]
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            raise self._fail(exc, "tools/list") from None

    def call(
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
        from mcp_types import InputRequiredResult

        if stop.STOPPED.is_set():  # Ctrl-C: no new call
            raise KeyboardInterrupt
        if pending is None and name not in self.tools():
            offered = ", ".join(sorted(self.tools())) or "none"
            raise BridgeError(f"has no tool {name!r} (it offers: {offered})", source=self.label)
        responses: dict[str, Any] | None = None
        state: str | None = None
        if pending is not None and pending.resend:
            declined = [
                f.key
                for f, r in zip(
                    pending.forms.forms, pending.forms.replies(answers or {}).values(), strict=True
                )
                if r.action != "accept"
            ]
            if declined:
                raise BridgeError(
                    f"tools/call {name!r} needs the URL elicitation {declined[0]!r} "
                    "completed first, and it was declined",
                    source=self.label,
                )
        elif pending is not None:
            responses = pending.forms.replies(answers or {})
            state = pending.request_state

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            if progress is not None:
                progress(done, total, message)

        async def send(client: Any) -> Any:
            return await client.session.call_tool(
                name,
                dict(arguments),
                meta=meta,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
                progress_callback=on_progress if progress is not None else None,
            )

        start = self._stderr_size()
        self._notes = []
        try:
            result = self._submit(send, elicit)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            required = self.rfd058 and _url_elicitations(exc)
            if required:  # -32042: open these URLs, then call again
                pending = Pending(required, None, resend=True)
                return CallResult(None, pending, self.stderr(start), warnings=list(self._notes))
            raise self._fail(exc, f"tools/call {name!r}") from None
        if isinstance(result, InputRequiredResult):
            forms = Forms.of(dict(result.input_requests or {}))
            pending = Pending(forms, result.request_state)
            return CallResult(None, pending, self.stderr(start), warnings=list(self._notes))
        wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        links: dict[int, list[dict[str, Any]]] = {}
        warnings = list(self._notes)
        if self.rfd058:
            links, unread = self._read_links(wire.get("content") or [])
            warnings += unread
        return CallResult(wire, None, self.stderr(start), links, warnings)

    def _read_links(self, items: list[Any]) -> tuple[dict[int, list[dict[str, Any]]], list[str]]:
        """Each `resource_link` item read through `resources/read` (RFD 058: JP handles
        links through the MCP client), when the server offers resources; a link that
        cannot be read stays a reference, with a warning saying why."""
        links: dict[int, list[dict[str, Any]]] = {}
        warnings: list[str] = []
        if not self._resources:
            return links, warnings
        for index, item in enumerate(items):
            if not isinstance(item, dict) or item.get("type") != "resource_link":
                continue
            uri = item.get("uri")

            async def read(client: Any, uri: Any = uri) -> Any:
                return await client.session.read_resource(uri)

            try:
                result = self._submit(read)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - the link stays a reference
                warnings.append(
                    f"content[{index}]: resource_link {uri} kept as a reference: "
                    f"{self._fail(exc, 'resources/read').reason}"
                )
                continue
            contents = getattr(result, "contents", None)
            if not contents:
                warnings.append(
                    f"content[{index}]: resource_link {uri} kept as a reference: "
                    "resources/read returned no contents"
                )
                continue
            links[index] = [
                c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in contents
            ]
        return links, warnings


class SessionPool:
    """Open MCP sessions kept for reuse, one per server, root, timeout and host (as JP keeps
    its servers).

    Not shared between threads: give each worker its own pool. `close()` may be
    called from any thread (each session's portal is thread-safe).
    """

    def __init__(self) -> None:
        self._open: dict[tuple[Any, ...], McpSession] = {}

    @staticmethod
    def _key(server: McpServer, root: Path, timeout: float | None, rfd058: bool) -> tuple[Any, ...]:
        env = tuple(sorted(server.env.items()))
        return (
            server.name,
            server.command,
            server.args,
            env,
            server.startup_timeout,
            str(root),
            timeout,
            rfd058,
        )

    def session(
        self, server: McpServer, root: Path, timeout: float | None, *, rfd058: bool = True
    ) -> McpSession:
        key = self._key(server, root, timeout, rfd058)
        session = self._open.get(key)
        if session is None:
            session = McpSession(server, root, timeout=timeout, rfd058=rfd058).__enter__()
            self._open[key] = session
        return session

    def discard(self, session: McpSession) -> None:
        for key, open_session in list(self._open.items()):
            if open_session is session:
                del self._open[key]
        session.__exit__(None, None, None)

    def close(self) -> None:
        while self._open:
            _, session = self._open.popitem()
            session.__exit__(None, None, None)
