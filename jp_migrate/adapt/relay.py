"""The `adapt --mcp` relay: JSON-RPC lines between the client and the D31 server.

Every line is parsed only to route it (its method and id) and passed on as the
bytes it came as: requests, results and errors, notifications (progress,
logging, list_changed, cancelled) and the server's own requests to the client
(sampling, roots, elicitation), both ways. What the adapter changes is a
`tools/call` answered with a single-text `Outcome` (`outcome_result.convert`);
that result, a question's elicitation round and the re-call with the answers are
rebuilt through the SDK's types (`d31_calls`); so is every result when a
2026-07-28 client meets a server that only knows `initialize` (`_bridge`).
Requests the adapter sends itself carry ids of its own (`OWN_ID…`), so their
answers are told apart from the traffic it relays.

What it cannot route it does not pass on: a client's line that is not one JSON-RPC
message (not JSON, nested deeper than JP reads, over the size limit, a batch its
protocol version has no room for, a request reusing an id in flight) is answered with
a JSON-RPC error; a server's answer it cannot read becomes an error (an `isError`
result for a `tools/call`) to the request it answers; a response to an id nobody
asked, and a server's line that is not JSON, are dropped with a warning on stderr.
Every request of the client's gets exactly one answer.

I/O is the caller's: `to_client` and `to_server` write one line each. The relay
never waits: a round trip of its own (a question round, the handshake it makes for
a 2026-07-28 client) goes on from the callback its answer reaches. The caller keeps
the calls into one relay from overlapping.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError

from jp_migrate.adapt import d31_calls
from jp_migrate.adapt.limits import MAX_MESSAGE
from jp_migrate.adapt.mcp import (
    MAX_QUESTIONS,
    ServerGone,
    State,
    StateError,
    encode_state,
    gone_result,
    is_ours,
    meta_problem,
    say,
    warn,
)
from jp_migrate.adapt.outcome_result import Question, convert
from jp_migrate.adapt.pipes import EDGE_BYTES, Oversize
from jp_migrate.adapt.wire import NESTED, members, valid_id
from jp_migrate.contract.jsontext import TOO_DEEP, may_be_too_deep, too_deep

OWN_ID = "jp-migrate-adapt:"
VERSION_META = "io.modelcontextprotocol/protocolVersion"  # a 2026-07-28 request's own version
BATCH_VERSION = "2025-03-26"  # the only protocol version with JSON-RPC batches
CONNECTION_CLOSED = -32000
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

Send = Callable[[bytes], None]
# What an answer to one of our own requests goes to: the message, or None when the
# server is gone before it answered.
Reply = Callable[[dict[str, Any] | None], None]


class RpcError(Exception):
    """The other side answered one of our requests with a JSON-RPC error (kept as it came)."""

    def __init__(self, error: Any) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass
class Call:
    """A client's `tools/call` on its way through the adapter."""

    id: Any
    name: str
    arguments: dict[str, Any]
    meta: dict[str, Any] | None
    version: str | None  # a 2026-07-28 call's own protocol version (in its `_meta`)
    answers: dict[str, Any] = field(default_factory=dict)
    rounds: int = 0  # questions asked in `input_required` results before this re-call


class Relay:
    def __init__(
        self,
        server: str,
        to_client: Send,
        to_server: Send,
        stderr_tail: Callable[[], str],
        limit: int = MAX_MESSAGE,
    ) -> None:
        self.server = server  # the server's command, for messages
        self.to_client = to_client
        self.to_server = to_server
        self.stderr_tail = stderr_tail
        self.limit = limit  # the largest message read, in bytes (`pipes.Lines` drops others)
        self.waiting: dict[Any, Call | str] = {}  # client requests the server still owes
        self.server_asked: set[Any] = set()  # server requests the client still owes
        self.asked_client: dict[str, Reply] = {}
        self.asked_server: dict[str, Reply] = {}
        self.secret = os.urandom(32)  # signs the request_state of our input_required rounds
        self.rounds: dict[Any, _Round] = {}  # calls asking through requests
        self.ids = itertools.count(1)
        self.version: str | None = None  # negotiated by `initialize`
        self.heard = False  # the server has written a message
        self.gone: str | None = None  # why the server is no longer there
        self.said = False  # the first call it failed named why
        # The client speaks 2026-07-28, the server only the initialize handshake: the adapter
        # answers `server/discover` for it and gives each result its 2026-07-28 form.
        self.bridging = False
        self.discovering: dict[Any, dict[str, Any]] = {}  # `server/discover` requests sent on

    # ── from the client ──

    def from_client(self, line: bytes | Oversize) -> None:
        if isinstance(line, Oversize):
            found = members(line.head, line.tail)
            self._unread_from_client(found, INVALID_REQUEST, self._too_large(line.size))
            return
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError:
            found = members(line[:EDGE_BYTES], line[-EDGE_BYTES:])
            if may_be_too_deep(line):  # orjson's own limit is deeper than JP's
                self._unread_from_client(found, INVALID_REQUEST, f"is {TOO_DEEP}")
            else:
                self._unread_from_client(found, PARSE_ERROR, "is not JSON")
            return
        if may_be_too_deep(line) and too_deep(msg):
            self._unread_from_client(_members_of(msg), INVALID_REQUEST, f"is {TOO_DEEP}")
        elif isinstance(msg, dict):
            self._client_message(msg, line)
        elif isinstance(msg, list):
            self._client_batch(msg)
        else:
            self._error(None, INVALID_REQUEST, "not a JSON-RPC message (a JSON object)")

    def _client_message(self, msg: dict[str, Any], line: bytes) -> None:
        if "method" not in msg:
            self._client_response(msg, line)
            return
        method, key = msg["method"], msg.get("id")
        if not isinstance(method, str):
            if "id" in msg:
                self._error(key if valid_id(key) else None, INVALID_REQUEST, "no method name")
            else:
                warn("adapt --mcp: a notification from the client has no method name: dropped")
            return
        if "id" not in msg:
            if method == "notifications/cancelled":
                self._cancelled(msg.get("params"))
            self._to_server(line)
            return
        if not valid_id(key):
            self._error(None, INVALID_REQUEST, f"{method}: the id is not a string or an integer")
            return
        if key in self.waiting or key in self.rounds:
            self._error(
                key, INVALID_REQUEST, f"{method}: id {key!r} is in use by a request in flight"
            )
            return
        if self.gone is not None:
            self._refuse(key, method, msg.get("params"))
            return
        if method == "tools/call":
            self._tool_call(key, msg, line)
            return
        if method == "server/discover":
            params = msg.get("params")
            self.discovering[key] = params if isinstance(params, dict) else {}
        self.waiting[key] = method
        self.to_server(line)

    def _client_response(self, msg: dict[str, Any], line: bytes) -> None:
        """The client's answer to a request of the server's or of ours; dropped when nobody
        asked it (or it is no response at all)."""
        key = msg.get("id")
        if not valid_id(key) or ("result" in msg) == ("error" in msg):
            warn("adapt --mcp: a message from the client is no request, notification or "
                 "response: dropped")  # fmt: skip
            return
        reply = self.asked_client.pop(key, None) if type(key) is str else None
        if reply is not None:
            reply(msg)
        elif key in self.server_asked:
            self.server_asked.discard(key)
            self._to_server(line)
        else:
            warn(f"adapt --mcp: the client answered id {key!r}, which nobody asked: dropped")

    def _client_batch(self, items: list[Any]) -> None:
        """A JSON-RPC batch: each message on its own where the session's protocol version
        has batches (answered one by one), else each request in it refused."""
        if self.version == BATCH_VERSION and items:
            for item in items:
                if isinstance(item, dict):
                    self._client_message(item, _line(item))
                else:
                    self._error(None, INVALID_REQUEST, "not a JSON-RPC message (a JSON object)")
            return
        why = f"batches are not part of protocol version {self.version or '(none agreed yet)'}"
        if not items:
            self._error(None, INVALID_REQUEST, "an empty batch")
            return
        requests = [m["id"] for m in items if isinstance(m, dict) and "method" in m and "id" in m]
        for key in requests:
            self._error(key if valid_id(key) else None, INVALID_REQUEST, why)
        if len(requests) < len(items):
            warn(f"adapt --mcp: a batch from the client: {why}: its other messages dropped")

    def _unread_from_client(self, found: dict[str, Any], code: int, why: str) -> None:
        """A client's message the relay cannot read (`found`: what its first and last bytes
        tell): the answer to a request is passed on as an error, anything else is answered
        with an error, by its id when that shows (else null: it may be a request whose id
        is out of sight, which must hear something)."""
        key = found.get("id")
        if "method" not in found and ("result" in found or "error" in found):
            error = _rpc(code, f"the client's answer {why}")
            reply = self.asked_client.pop(key, None) if type(key) is str else None
            if reply is not None:
                reply({"jsonrpc": "2.0", "id": key, "error": error})
            elif valid_id(key) and key in self.server_asked:
                self.server_asked.discard(key)
                self._to_server(_error_line(key, error))
            else:
                warn(f"adapt --mcp: an answer from the client {why}: dropped")
            return
        if "method" in found and "id" not in found:  # a notification, or its id unseen
            warn(f"adapt --mcp: a message from the client with no id in sight {why}")
        self._error(key if valid_id(key) else None, code, f"the message {why}")

    def _tool_call(self, key: Any, msg: dict[str, Any], line: bytes) -> None:
        params = msg.get("params")
        if not isinstance(params, dict) or not isinstance(params.get("name"), str):
            self.waiting[key] = "tools/call"
            self.to_server(line)  # the server says what is wrong with it
            return
        problem = meta_problem(params.get("_meta"))
        if problem is not None:
            self._error(key, INVALID_PARAMS, f"invalid tools/call: {problem}")
            return
        meta = params.get("_meta")
        version = meta.get(VERSION_META) if meta is not None else None
        call = Call(
            key,
            params["name"],
            params.get("arguments") if isinstance(params.get("arguments"), dict) else {},
            meta,
            version if isinstance(version, str) else None,
        )
        if not is_ours(params.get("requestState")):
            self.waiting[key] = call
            self.to_server(line)  # no round of ours (perhaps the server's own): untouched
            return
        try:
            resumed = d31_calls.Resumed(params, self.secret, call.name, call.arguments)
        except StateError as exc:
            self._error(key, INVALID_PARAMS, f"invalid tools/call: {exc}")
            return
        except ValidationError as exc:
            self._error(key, INVALID_PARAMS, f"invalid tools/call: {_first_error(exc)}")
            return
        if resumed.ignored:
            warn(f"adapt --mcp: tools/call {call.name!r}: answers to questions it was not "
                 f"asked left out: {', '.join(map(repr, resumed.ignored))}")  # fmt: skip
        call.answers, call.rounds = resumed.answers, resumed.rounds
        if resumed.declined is not None:
            self._result(call, d31_calls.declined(call.name, resumed.declined))
            return
        self.waiting[key] = call
        self._send(self.to_server, key, "tools/call", self._recall(call))

    def _cancelled(self, params: Any) -> None:
        """A cancelled call still asking through requests stops asking."""
        if isinstance(params, dict):
            try:
                round_ = self.rounds.pop(params.get("requestId"), None)
            except TypeError:  # an id no request has (a list, an object)
                return
            if round_ is not None:
                round_.cancel()

    # ── from the server ──

    def from_server(self, line: bytes | Oversize) -> None:
        self.heard = True
        if isinstance(line, Oversize):
            self._unread_from_server(members(line.head, line.tail), self._too_large(line.size))
            return
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError:
            if may_be_too_deep(line):  # orjson's own limit is deeper than JP's
                found = members(line[:EDGE_BYTES], line[-EDGE_BYTES:])
                self._unread_from_server(found, f"is {TOO_DEEP}")
            else:
                warn(f"adapt --mcp: the server wrote a line that is not JSON "
                     f"({len(line)} bytes): dropped")  # fmt: skip
            return
        if may_be_too_deep(line) and too_deep(msg):
            self._unread_from_server(_members_of(msg), f"is {TOO_DEEP}")
        elif isinstance(msg, dict):
            self._server_message(msg, line)
        elif isinstance(msg, list):
            if self.version != BATCH_VERSION:
                warn(f"adapt --mcp: the server sent a batch, which protocol version "
                     f"{self.version} does not have: its messages are taken one by one")  # fmt: skip
            for item in msg:
                if isinstance(item, dict):
                    self._server_message(item, _line(item))
        else:
            warn("adapt --mcp: the server wrote JSON that is no JSON-RPC message: dropped")

    def _server_message(self, msg: dict[str, Any], line: bytes) -> None:
        if "method" in msg:
            self._server_request(msg, line)
            return
        key = msg.get("id")
        reply = self.asked_server.pop(key, None) if type(key) is str else None
        if reply is not None:
            reply(msg)
            return
        pending = self.waiting.pop(key, None) if valid_id(key) else None
        if pending is None:
            warn(f"adapt --mcp: the server answered id {key!r}, which no request in flight "
                 "has: dropped")  # fmt: skip
            return
        discover = self.discovering.pop(key, None) if pending == "server/discover" else None
        if discover is not None and "error" in msg and not self.bridging:
            self._bridge(key, discover, msg["error"])
            return
        if self.bridging and isinstance(msg.get("result"), dict):
            method = "tools/call" if isinstance(pending, Call) else pending
            modern = d31_calls.modern_result(method, msg["result"])
            if modern is not None:
                msg["result"] = modern
                line = _line(msg)
        if isinstance(pending, Call) and isinstance(msg.get("result"), dict):
            self._answered(pending, msg["result"], line)
            return
        if pending == "initialize" and isinstance(msg.get("result"), dict):
            version = msg["result"].get("protocolVersion")
            self.version = version if isinstance(version, str) else None
        self.to_client(line)

    def _server_request(self, msg: dict[str, Any], line: bytes) -> None:
        """The server's request or notification, passed on; a request the client could not
        answer unmistakably (its id not MCP's, in flight, or looking like one of ours) is
        refused to the server."""
        method, key = msg["method"], msg.get("id")
        if "id" not in msg:
            if method == "notifications/cancelled" and isinstance(msg.get("params"), dict):
                request = msg["params"].get("requestId")
                if valid_id(request):
                    self.server_asked.discard(request)
            self.to_client(line)
            return
        if (
            not isinstance(method, str)
            or not valid_id(key)
            or key in self.server_asked
            or (type(key) is str and key.startswith(OWN_ID))
        ):
            why = "no method name, an id that is not a string or an integer, or one in use"
            self._to_server(_error_line(key if valid_id(key) else None, _rpc(INVALID_REQUEST, why)))
            warn(f"adapt --mcp: a request from the server refused: {why}")
            return
        self.server_asked.add(key)
        self.to_client(line)

    def _unread_from_server(self, found: dict[str, Any], why: str) -> None:
        """A server's message the relay cannot read (`found`: what its first and last bytes
        tell): the request it answers gets an error instead (an `isError` result for a
        `tools/call`), a request of its own is refused, a notification dropped."""
        key, method = found.get("id"), found.get("method")
        if "method" in found:
            if valid_id(key):
                self._to_server(_error_line(key, _rpc(INVALID_REQUEST, f"the request {why}")))
            warn(f"adapt --mcp: a message from the server ({method}) {why}: dropped")
            return
        reply = self.asked_server.pop(key, None) if type(key) is str else None
        if reply is not None:
            error = _rpc(INTERNAL_ERROR, f"the MCP server's answer {why}")
            reply({"jsonrpc": "2.0", "id": key, "error": error})
            return
        pending = self.waiting.pop(key, None) if valid_id(key) else None
        if pending is None:
            warn(f"adapt --mcp: a message from the server {why}: dropped")
            return
        self.discovering.pop(key, None)
        warn(f"adapt --mcp: the server's answer to id {key!r} {why}: answered as an error")
        if isinstance(pending, Call):
            self._result(pending, d31_calls.unread_result(pending.name, f"its answer {why}"))
        else:
            self._error(key, INTERNAL_ERROR, f"the MCP server's answer {why}")

    def _too_large(self, size: int) -> str:
        return f"is {size} bytes, more than the adapter's limit of {self.limit} (--max-message)"

    def _answered(self, call: Call, result: dict[str, Any], line: bytes) -> None:
        converted = convert(result)
        if converted is None:
            self.to_client(line)  # native, or the server's own input_required: untouched
        elif converted.result is not None:
            self._result(call, converted.result)
        else:
            assert converted.question is not None
            self._ask(call, converted.question)

    # ── a 2026-07-28 client, a server that only knows initialize ──

    def _bridge(self, key: Any, discover: dict[str, Any], error: Any) -> None:
        """The server refused `server/discover`: the adapter makes the handshake with it in
        the client's name and answers the discover itself, so a 2026-07-28 client keeps its
        version (and gets questions inside `input_required` results) whatever the server's."""

        def initialized(msg: dict[str, Any] | None) -> None:
            try:
                result = _result_of(msg)
                answer = d31_calls.discover_result(result)
            except (RpcError, ValidationError, ServerGone):
                self._send_error(key, error)  # the server's own refusal: the client falls back
                return
            version = result.get("protocolVersion")
            self.version = version if isinstance(version, str) else None
            self.bridging = True
            self.to_server(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            self._respond(key, answer)

        params = d31_calls.initialize_params(discover)
        self._request(self.asked_server, self.to_server, "initialize", params, initialized)

    # ── questions ──

    def _ask(self, call: Call, question: Question) -> None:
        if d31_calls.asks_in_result(self._version(call)):
            if call.rounds == MAX_QUESTIONS:
                self._result(call, d31_calls.too_many_questions(call.name))
                return
            state = State(question.id, call.answers, call.rounds + 1)
            token = encode_state(self.secret, call.name, call.arguments, state)
            self._respond(call.id, d31_calls.input_required(question, token))
            return
        round_ = _Round(self, call)
        self.rounds[call.id] = round_
        round_.ask(question)

    def _recall(self, call: Call) -> dict[str, Any]:
        return d31_calls.recall_params(call.name, call.arguments, call.meta, call.answers)

    def _request(
        self, asked: dict[str, Reply], send: Send, method: str, params: Any, reply: Reply
    ) -> str | None:
        """Send a request of our own, its answer to go to `reply` (None at once when the
        server it is for is gone); the id it went by."""
        if send is self.to_server and self.gone is not None:
            reply(None)
            return None
        key = f"{OWN_ID}{next(self.ids)}"
        asked[key] = reply
        self._send(send, key, method, params)
        return key

    # ── the server gone ──

    def server_gone(self, reason: str) -> None:
        """The server ended: each call it owed gets its error, each later one the same."""
        if self.gone is not None:
            return
        self.gone = reason
        for key, pending in list(self.waiting.items()):
            del self.waiting[key]
            if isinstance(pending, Call):
                self._gone_call(pending)
            else:
                self._refuse(key, pending, None)
        replies = list(self.asked_server.values())
        self.asked_server.clear()
        for reply in replies:
            reply(None)

    def _refuse(self, key: Any, method: str, params: Any) -> None:
        if method == "tools/call" and isinstance(params, dict):
            name = params.get("name")
            self._gone_call(Call(key, name if isinstance(name, str) else "?", {}, None, None))
            return
        self._say_gone(method)
        self._error(key, CONNECTION_CLOSED, f"the MCP server is gone: {self.gone}")

    def _gone_call(self, call: Call) -> None:
        self._say_gone(f"tools/call {call.name!r}")
        reason = f"the MCP server is gone: {self.gone}"
        self._result(call, gone_result(call.name, reason, self.stderr_tail()))

    def _say_gone(self, doing: str) -> None:
        """One line per call the server failed: what ended it the first time."""
        if not self.said:
            self.said = True
            say(f"MCP server {self.server!r}: {doing}: {self.gone}")
        else:
            say(f"MCP server {self.server!r}: {doing}: the server is gone ({self.gone})")

    # ── writing ──

    def _result(self, call: Call, data: Mapping[str, Any]) -> None:
        self._respond(call.id, d31_calls.call_result(self._version(call), data))

    def _version(self, call: Call) -> str | None:
        """The protocol version a call is answered in: its own, else the session's (read
        when the answer is written: a client may send calls before `initialize` is answered)."""
        return call.version or self.version

    def _respond(self, key: Any, result: Any) -> None:
        self.to_client(_line({"jsonrpc": "2.0", "id": key, "result": result}))

    def _error(self, key: Any, code: int, message: str) -> None:
        self._send_error(key, {"code": code, "message": message})

    def _send_error(self, key: Any, error: Any) -> None:
        self.to_client(_error_line(key, error))

    def _send(self, send: Send, key: Any, method: str, params: Any) -> None:
        send(_line({"jsonrpc": "2.0", "id": key, "method": method, "params": params}))

    def _to_server(self, line: bytes) -> None:
        if self.gone is None:
            self.to_server(line)


def _members_of(msg: Any) -> dict[str, Any]:
    """`wire.members`' reading of a message already parsed."""
    if not isinstance(msg, dict):
        return {}
    return {k: NESTED if isinstance(v, dict | list) else v for k, v in msg.items()}


def _line(message: Any) -> bytes:
    """A message as the line that carries it (its newline added by orjson: no copy)."""
    return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)


def _rpc(code: int, message: str) -> dict[str, Any]:
    return {"code": code, "message": message}


def _error_line(key: Any, error: Any) -> bytes:
    return _line({"jsonrpc": "2.0", "id": key, "error": error})


def _result_of(msg: dict[str, Any] | None) -> Any:
    """The result an answer to our request carries (RpcError for an error, ServerGone
    when there was no answer)."""
    if msg is None:
        raise ServerGone("no answer")
    if "error" in msg:
        raise RpcError(msg["error"])
    return msg.get("result")


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return str(exc).splitlines()[0]
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    return f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))


class _Round:
    """A question asked of a client before 2026-07-28: `elicitation/create` requests of
    the adapter's own, the server called again with each answer, until it gives a result."""

    def __init__(self, relay: Relay, call: Call) -> None:
        self.relay = relay
        self.call = call
        self.question: Question | None = None
        self.asked = 0
        self.waiting: tuple[dict[str, Reply], str] | None = None  # the request it awaits

    def ask(self, question: Question) -> None:
        if self.asked == MAX_QUESTIONS:
            self._end(d31_calls.too_many_questions(self.call.name))
            return
        self.asked += 1
        self.question = question
        relay = self.relay
        params = d31_calls.elicit_request(question)
        key = relay._request(
            relay.asked_client, relay.to_client, "elicitation/create", params, self.answered
        )
        if key is not None:  # always: only the server's going answers at once
            self.waiting = (relay.asked_client, key)

    def answered(self, msg: dict[str, Any] | None) -> None:
        self.waiting = None
        relay, call = self.relay, self.call
        assert self.question is not None
        try:
            answer = d31_calls.elicit_answer(relay._version(call), _result_of(msg))
            declined = d31_calls.take_answers({self.question.id: answer}, call.answers)
            recall = relay._recall(call)
        except RpcError as exc:
            self._fail(exc.error)
            return
        except ValidationError as exc:
            self._invalid(exc)
            return
        if declined is not None:
            self._end(d31_calls.declined(call.name, declined))
            return
        key = relay._request(
            relay.asked_server, relay.to_server, "tools/call", recall, self.recalled
        )
        if key is not None:
            self.waiting = (relay.asked_server, key)

    def recalled(self, msg: dict[str, Any] | None) -> None:
        self.waiting = None
        call = self.call
        try:
            result = _result_of(msg)
        except RpcError as exc:
            self._fail(exc.error)
            return
        except ServerGone:
            self._over()._gone_call(call)
            return
        converted = convert(result) if isinstance(result, dict) else None
        if converted is None:
            self._over()._respond(call.id, result)
        elif converted.result is not None:
            self._end(converted.result)
        else:
            assert converted.question is not None
            self.ask(converted.question)

    def cancel(self) -> None:
        """The client cancelled the call: no more questions, and an answer still to come is
        dropped."""
        if self.waiting is not None:
            asked, key = self.waiting
            asked.pop(key, None)
            self.waiting = None

    def _over(self) -> Relay:
        """The round ends (the call asks no more); the relay, to answer the call."""
        self.relay.rounds.pop(self.call.id, None)
        return self.relay

    def _end(self, data: Mapping[str, Any]) -> None:
        self._over()._result(self.call, data)

    def _fail(self, error: Any) -> None:
        self._over()._send_error(self.call.id, error)

    def _invalid(self, exc: ValidationError) -> None:
        message = f"invalid elicitation answer: {_first_error(exc)}"
        self._over()._error(self.call.id, INTERNAL_ERROR, message)
