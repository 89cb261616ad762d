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
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Mapping
from concurrent.futures import Future
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Self

from jp_migrate.bridge import stop
from jp_migrate.bridge.config import McpServer
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.groups import Group, spawned_by
from jp_migrate.bridge.questions import AnswerSource
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
    """An open `input_required` round: what to answer, and the state to echo."""

    requests: dict[str, Any]  # key → the SDK's InputRequest
    request_state: str | None
    questions: list[NormalizedQuestion]
    # question id → (request key, form property); no property: a form without fields,
    # asked as a yes/no that accepts or declines it
    keys: dict[str, tuple[str, str | None]]
    optional: frozenset[str] = frozenset()  # ids of questions for fields the form does not require


@dataclass
class CallResult:
    result: dict[str, Any] | None  # the tools/call result as wire JSON, when complete
    pending: Pending | None  # or the input it needs first
    stderr: str = ""  # what the server wrote to stderr during the call


OMITTED: Any = object()  # the answer to an optional form field nobody answered: left out


@dataclass
class FormAnswers(AnswerSource):
    """Answers for MCP forms (MCP forms mark optional fields): a field the form does not
    require, with no answer given, is left out when the user says so (`wants`, at a
    terminal), or with no one to ask and no default."""

    optional: frozenset[str] = frozenset()

    def answer(self, question: NormalizedQuestion) -> Any:
        if question.id in self.optional and question.id not in self.given:
            if self.ask is None and question.default is None:
                return OMITTED
            if self.ask is not None and self._declined(question):
                return OMITTED
        return super().answer(question)

    def ask_again(self, question: NormalizedQuestion) -> Any:
        if question.id in self.optional and self._declined(question):
            return OMITTED
        return super().ask_again(question)

    def _declined(self, question: NormalizedQuestion) -> bool:
        """The user said not to answer this optional field (asked at a terminal)."""
        return self.wants is not None and not self.wants(question)


def answered(answers: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answers.items() if value is not OMITTED}


def _form_questions(
    requests: Mapping[str, Any],
) -> tuple[list[NormalizedQuestion], dict[str, tuple[str, str | None]], frozenset[str]]:
    """Each elicitation form property becomes a question (id = property, or `key.property` on
    a clash); a form without properties, one yes/no question (id = its key). Also the ids
    of the questions for properties the form does not list as `required`."""
    questions: list[NormalizedQuestion] = []
    keys: dict[str, tuple[str, str | None]] = {}
    optional: set[str] = set()
    for key, request in requests.items():
        params = getattr(request, "params", None)
        if (
            getattr(request, "method", None) != "elicitation/create"
            or getattr(params, "mode", None) != "form"
        ):
            method = getattr(request, "method", type(request).__name__)
            raise BridgeError(
                f"input_required asks for {method!r} ({key}), which the bridge cannot provide"
            )
        schema = params.requested_schema or {}
        properties = schema.get("properties") or {}
        if not properties:
            qid = key if key not in keys else f"{key}.confirm"
            questions.append(
                NormalizedQuestion.model_validate(
                    {"id": qid, "text": params.message, "schema": {"type": "boolean"}}
                )
            )
            keys[qid] = (key, None)
            continue
        required = schema.get("required")
        required = set(required) if isinstance(required, list) else set()
        for prop, prop_schema in properties.items():
            qid = prop if prop not in keys else f"{key}.{prop}"
            if prop not in required:
                optional.add(qid)
            prop_schema = dict(prop_schema) if isinstance(prop_schema, Mapping) else {}
            label = prop_schema.get("title") or prop_schema.get("description")
            text = (
                params.message if len(properties) == 1 or not label else f"{params.message} {label}"
            )
            # The default is the question's own field (as a question block has it), not the
            # answer's schema: a legacy question with a default compares equal to its form.
            answer_schema = {k: v for k, v in prop_schema.items() if k != "default"}
            questions.append(
                NormalizedQuestion.model_validate(
                    {
                        "id": qid,
                        "text": text,
                        "schema": answer_schema,
                        "default": prop_schema.get("default"),
                    }
                )
            )
            keys[qid] = (key, prop)
    return questions, keys, frozenset(optional)


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


class McpSession:
    def __init__(self, server: McpServer, root: Path, *, timeout: float | None = None) -> None:
        self.server = server
        self.root = root
        self.timeout = timeout if timeout is not None else DEFAULT_TIMEOUT
        self._stack = ExitStack()
        self._portal: Any = None
        self._inbox: Any = None
        self._errlog: IO[str] | None = None
        self._tools: frozenset[str] | None = None
        self._life: Any = None  # the CancelScope of the whole client task (start-up included)
        self._aborted = False  # abort() came, perhaps before the task made `_life`
        self._current: Future[Any] | None = None  # the caller waiting on the call in flight
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

    def _fail(self, exc: BaseException, doing: str) -> BridgeError:
        from mcp import MCPError

        exc = _error_text(exc)
        if isinstance(exc, BridgeError):
            return exc
        tail = self.stderr().strip().splitlines()
        said = f" (stderr: {tail[-1]})" if tail else ""
        if isinstance(exc, TimeoutError):
            if doing == "start":
                limit = f"{self.server.startup_timeout or 0:g}s (its startup_timeout_secs)"
            else:
                limit = f"{self.timeout:g}s"
            return BridgeError(f"{doing} timed out after {limit}{said}", source=self.label)
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
        failed or interrupted start leaves nothing behind, and kill
        it when the start outlives startup_timeout_secs (the SDK would wait seconds more
        for a hung server to exit)."""
        startup = self.server.startup_timeout
        # A moment after the start's own deadline, so the start still ends as a timeout.
        deadline = None if startup is None else time.monotonic() + startup + START_KILL_AFTER
        while not started.wait(START_POLL_SECONDS):
            if not self._groups:
                self._groups = spawned_by(portal_thread)
            if deadline is not None and time.monotonic() >= deadline:
                self._kill()
                return
        if not self._groups:
            self._groups = spawned_by(portal_thread)

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
        # in JP, below); each call is bounded by `--timeout` in the loop.
        client = Client(stdio_client(params, errlog=self._errlog), cache=None)
        send, receive = anyio.create_memory_object_stream[tuple[Any, Future[Any]]](0)
        startup = self.server.startup_timeout
        deadline = math.inf if startup is None else anyio.current_time() + startup
        self._life = anyio.CancelScope()
        if self._aborted:  # set before `_life` existed (abort reads `_life` after setting it)
            self._life.cancel()
        try:
            with self._life, anyio.CancelScope(deadline=deadline) as connecting:
                async with client:
                    connecting.deadline = math.inf
                    task_status.started(send)
                    async with receive:
                        async for work, future in receive:
                            self._current = future
                            try:
                                with anyio.fail_after(self.timeout):
                                    future.set_result(await work(client))
                            except TimeoutError as exc:
                                self._hung = True
                                future.set_exception(exc)
                            except Exception as exc:  # noqa: BLE001 - to the caller's thread
                                future.set_exception(exc)
                            self._current = None
        finally:
            self._kill()  # the server is stopped by now; what it started goes too
            current, self._current = self._current, None
            if current is not None and not current.done():  # cancelled (abort) mid-call
                current.set_exception(KeyboardInterrupt())
        if connecting.cancelled_caught:
            raise TimeoutError

    def _submit(self, work: Any) -> Any:
        future: Future[Any] = Future()
        self._portal.call(self._inbox.send, (work, future))
        return future.result()

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
            from mcp.types import PaginatedRequestParams

            async def list_all(client: Any) -> frozenset[str]:
                names: set[str] = set()
                cursor: str | None = None
                while True:
                    params = PaginatedRequestParams(cursor=cursor) if cursor else None
                    page = await client.session.list_tools(params=params)
                    names.update(tool.name for tool in page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        return frozenset(names)

            try:
                self._tools = self._submit(list_all)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001
                raise self._fail(exc, "tools/list") from None
        return self._tools

    def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        meta: dict[str, Any] | None,
        pending: Pending | None = None,
        answers: Mapping[str, Any] | None = None,
    ) -> CallResult:
        """One `tools/call`; with `pending`, the retry carrying the answers as input responses."""
        from mcp_types import ElicitResult, InputRequiredResult

        if stop.STOPPED.is_set():  # Ctrl-C: no new call
            raise KeyboardInterrupt
        if pending is None and name not in self.tools():
            offered = ", ".join(sorted(self.tools())) or "none"
            raise BridgeError(f"has no tool {name!r} (it offers: {offered})", source=self.label)
        responses: dict[str, Any] | None = None
        state: str | None = None
        if pending is not None:
            forms: dict[str, dict[str, Any]] = {key: {} for key in pending.requests}
            declined: set[str] = set()
            for qid, (key, prop) in pending.keys.items():
                if answers is None or qid not in answers:
                    continue
                if prop is not None:
                    forms[key][prop] = answers[qid]
                elif answers[qid] is not True:  # a form without fields: "no" declines it
                    declined.add(key)
            responses = {
                key: ElicitResult(action="decline")
                if key in declined
                else ElicitResult(action="accept", content=form)
                for key, form in forms.items()
            }
            state = pending.request_state

        async def send(client: Any) -> Any:
            return await client.session.call_tool(
                name,
                dict(arguments),
                meta=meta,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
            )

        start = self._stderr_size()
        try:
            result = self._submit(send)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            raise self._fail(exc, f"tools/call {name!r}") from None
        if isinstance(result, InputRequiredResult):
            questions, keys, optional = _form_questions(result.input_requests or {})
            requests = dict(result.input_requests or {})
            return CallResult(
                None,
                Pending(requests, result.request_state, questions, keys, optional),
                self.stderr(start),
            )
        wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return CallResult(wire, None, self.stderr(start))


class SessionPool:
    """Open MCP sessions kept for reuse, one per server, root and timeout (as JP keeps its servers).

    Not shared between threads: give each worker its own pool. `close()` may be
    called from any thread (each session's portal is thread-safe).
    """

    def __init__(self) -> None:
        self._open: dict[tuple[Any, ...], McpSession] = {}

    @staticmethod
    def _key(server: McpServer, root: Path, timeout: float | None) -> tuple[Any, ...]:
        env = tuple(sorted(server.env.items()))
        return (
            server.name,
            server.command,
            server.args,
            env,
            server.startup_timeout,
            str(root),
            timeout,
        )

    def session(self, server: McpServer, root: Path, timeout: float | None) -> McpSession:
        key = self._key(server, root, timeout)
        session = self._open.get(key)
        if session is None:
            session = McpSession(server, root, timeout=timeout).__enter__()
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
