"""`jp-migrate adapt --mcp` relays what it does not convert, both ways: notifications
(progress, logging, list_changed, cancelled) and the server's own requests to the client
(sampling, roots, elicitation), against the reference server (npm, not written by us) and
the example server's `--jp` mode against its native mode."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import mcp_types as types
import pytest
from conftest import EXAMPLES
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from real_servers import everything_entry

SERVER = str(EXAMPLES / "mcp_server" / "server.py")
PY = sys.executable
ADAPT = [PY, "-m", "jp_migrate", "adapt", "--mcp", "--"]
NATIVE = [PY, SERVER]
ADAPTED = [*ADAPT, PY, SERVER, "--jp"]
ROOT = "file:///work/space"
WAIT = 60  # seconds for an awaited message to arrive: it comes, or the test fails


class Seen:
    """What the client was sent besides results: each callback's payload, in order."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []
        self.changed = anyio.Event()

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.events.append(("progress", [progress, total, message]))
        self.changed.set()

    async def log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.events.append(("log", [params.level, params.data]))
        self.changed.set()

    async def message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self.events.append(("tools/list_changed", None))
            self.changed.set()

    async def sampling(self, _ctx: Any, params: types.CreateMessageRequestParams) -> Any:
        self.events.append(("sampling", params.model_dump(mode="json", exclude_none=True)))
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(text="sampled!"), model="test-model"
        )

    async def elicitation(self, _ctx: Any, params: Any) -> types.ElicitResult:
        self.events.append(("elicitation", params.model_dump(mode="json", exclude_none=True)))
        return types.ElicitResult(action="decline")

    async def roots(self, _ctx: Any) -> types.ListRootsResult:
        self.events.append(("roots", None))
        return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="space")])

    def of(self, kind: str) -> list[Any]:
        return [payload for k, payload in self.events if k == kind]

    async def until(self, kind: str, count: int) -> list[Any]:
        """The first `count` payloads of `kind`, once they have all come."""
        with anyio.fail_after(WAIT):
            while len(self.of(kind)) < count:
                self.changed = anyio.Event()
                await self.changed.wait()
        return self.of(kind)[:count]


def client(command: list[str], seen: Seen) -> Client:
    """A 2025-11-25 client (the protocol in which servers send requests mid-call)."""
    params = StdioServerParameters(command=command[0], args=command[1:])
    return Client(
        stdio_client(params),
        cache=None,
        mode="legacy",
        sampling_callback=seen.sampling,
        elicitation_callback=seen.elicitation,
        list_roots_callback=seen.roots,
        logging_callback=seen.log,
        message_handler=seen.message,
    )


def _text(result: types.CallToolResult) -> list[Any]:
    return [(c.text if isinstance(c, types.TextContent) else c.type) for c in result.content]


# ── the example server: --jp behind the adapter against native ──


def test_progress_and_log_notifications_come_through_a_converted_call() -> None:
    async def observe(command: list[str]) -> tuple[list[Any], list[Any], list[Any]]:
        seen = Seen()
        async with client(command, seen) as c:
            result = await c.session.call_tool(
                "count", {"steps": 3}, progress_callback=seen.progress
            )
            return _text(result), await seen.until("progress", 3), await seen.until("log", 3)

    native, adapted = anyio.run(observe, NATIVE), anyio.run(observe, ADAPTED)
    assert adapted == native
    text, progress, logs = adapted
    assert text == ["counted to 3"]  # the Outcome made native
    assert progress == [[1, 3, "step 1"], [2, 3, "step 2"], [3, 3, "step 3"]]
    assert logs == [["info", "counted 1"], ["info", "counted 2"], ["info", "counted 3"]]


def test_a_request_to_the_client_mid_call_comes_through() -> None:
    """The server asks the client for its roots while a D31 call is running; the answer goes
    back to it, and the Outcome it then gives is made native."""

    async def observe(command: list[str]) -> tuple[list[Any], list[Any]]:
        seen = Seen()
        async with client(command, seen) as c:
            result = await c.session.call_tool("list_roots", {})
            return _text(result), seen.of("roots")

    native, adapted = anyio.run(observe, NATIVE), anyio.run(observe, ADAPTED)
    assert adapted == native == ([ROOT], [None])


def test_a_cancelled_call_reaches_the_server(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"

    def lines() -> list[dict[str, Any]]:
        return (
            [json.loads(line) for line in record.read_text().splitlines()]
            if record.exists()
            else []
        )

    async def scenario() -> None:
        seen = Seen()
        async with client([*ADAPTED, "--record", str(record)], seen) as c:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(c.session.call_tool, "wait_for_cancel", {})
                deadline = time.monotonic() + WAIT
                while not lines():  # the call has reached the server
                    assert time.monotonic() < deadline, "the call did not reach the server"
                    await anyio.sleep(0.05)
                tasks.cancel_scope.cancel()  # the SDK sends notifications/cancelled
            deadline = time.monotonic() + WAIT
            while {"cancelled": "wait_for_cancel"} not in lines():
                assert time.monotonic() < deadline, f"the server was not told: {lines()}"
                await anyio.sleep(0.05)
            # The session goes on.
            assert _text(await c.session.call_tool("greet", {"name": "Ada"})) == ["Hello, Ada!"]

    anyio.run(scenario)


# ── the reference server (npm), behind the adapter against directly ──


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_the_reference_servers_requests_and_notifications_pass_through() -> None:
    entry = everything_entry()
    direct = ["node", str(entry), "stdio"]
    calls = [
        ("trigger-sampling-request", {"prompt": "hi", "maxTokens": 5}),
        ("trigger-elicitation-request", {}),
        ("get-roots-list", {}),
        ("trigger-long-running-operation", {"duration": 0.2, "steps": 2}),
    ]

    async def observe(command: list[str]) -> dict[str, Any]:
        seen = Seen()
        async with client(command, seen) as c:
            await c.session.set_logging_level("debug")
            results = [
                _text(await c.session.call_tool(name, args, progress_callback=seen.progress))
                for name, args in calls
            ]
            return {
                "results": results,
                "progress": await seen.until("progress", 2),
                "sampling": await seen.until("sampling", 1),
                "elicitation": await seen.until("elicitation", 1),
                "roots": len(await seen.until("roots", 1)) > 0,
                "log": await seen.until("log", 1),
                "list_changed": len(await seen.until("tools/list_changed", 1)) > 0,
            }

    expected, through = anyio.run(observe, direct), anyio.run(observe, [*ADAPT, *direct])
    assert through == expected
    assert "sampled!" in through["results"][0][0]  # the client's answer reached the server
    assert "declined" in through["results"][1][0]  # its own elicitation, not the adapter's
    assert "/work/space" in through["results"][2][0]
    assert through["progress"] == [[1, 2, None], [2, 2, None]]
    assert through["sampling"][0]["messages"][0]["content"]["text"].endswith("hi")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_native_server_in_either_protocol_era_passes_through(mode: str) -> None:
    """A client speaking 2026-07-28 (`server/discover`, the version in each request's
    `_meta`) or 2025-11-25 (`initialize`) reaches the server in its own era."""

    async def observe(command: list[str]) -> tuple[str, list[Any]]:
        params = StdioServerParameters(command=command[0], args=command[1:])
        async with Client(stdio_client(params), cache=None, mode=mode) as c:  # type: ignore[arg-type]
            result = await c.session.call_tool("divide", {"a": 1, "b": 0})
            return c.protocol_version, [_text(result), result.is_error]

    native, adapted = anyio.run(observe, NATIVE), anyio.run(observe, ADAPTED)
    assert adapted == native
    assert native[0] == ("2026-07-28" if mode == "auto" else "2025-11-25")


# ── the relay on its own: lines in, lines out ──


class Wires:
    """A Relay with both sides recorded, as the lines it wrote."""

    def __init__(self) -> None:
        from jp_migrate.adapt.relay import Relay

        self.client: list[bytes] = []
        self.server: list[bytes] = []
        self.relay = Relay("srv", self.client.append, self.server.append, lambda: "")

    @staticmethod
    def last(side: list[bytes]) -> dict[str, Any]:
        return json.loads(side[-1])


HANDSHAKE = (
    b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}\n'
)
INITIALIZED = (
    b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":'
    b'{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}\n'
)


async def settle() -> None:
    """Let the relay's own tasks run up to their next wait (a few turns of the loop)."""
    for _ in range(5):
        await anyio.lowlevel.checkpoint()


def _outcome_result(key: Any, outcome: dict[str, Any]) -> bytes:
    text = json.dumps(outcome)
    result = {"content": [{"type": "text", "text": text}], "isError": False}
    return json.dumps({"jsonrpc": "2.0", "id": key, "result": result}).encode() + b"\n"


def _accepted(key: Any, content: dict[str, Any]) -> bytes:
    """The client's line accepting the adapter's elicitation `key` with `content`."""
    result = {"action": "accept", "content": content}
    return json.dumps({"jsonrpc": "2.0", "id": key, "result": result}).encode() + b"\n"


def test_what_is_not_converted_passes_byte_for_byte() -> None:
    """Odd spacing, key order, unknown fields, a request from the server and its answer, a
    notification: each reaches the other side as the bytes it was."""
    w = Wires()
    w.relay.from_client(HANDSHAKE)
    w.relay.from_server(INITIALIZED)
    call = b'{ "jsonrpc" : "2.0", "id": 7, "method": "tools/call", "params": {"name": "n"} }\n'
    result = (
        b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a"},'
        b'{"type":"text","text":"b"}],"isError":false, "extra":  [1]}}\n'
    )
    roots = b'{"jsonrpc":"2.0","id":"s-1","method":"roots/list"}\n'
    listed = b'{"jsonrpc":"2.0","id":"s-1","result":{"roots":[],"x-extra":1}}\n'
    progress = (
        b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,'
        b'"progress":0.5}}\n'
    )
    cancelled = b'{"method":"notifications/cancelled","jsonrpc":"2.0","params":{"requestId":7}}\n'
    w.relay.from_client(call)
    w.relay.from_server(roots)
    w.relay.from_client(listed)
    w.relay.from_server(progress)
    w.relay.from_client(cancelled)
    w.relay.from_server(result)  # after the cancel: the server answered all the same
    assert w.server == [HANDSHAKE, call, listed, cancelled]
    assert w.client == [INITIALIZED, roots, progress, result]


def test_an_older_clients_question_round_goes_by_the_adapters_own_ids() -> None:
    """The `elicitation/create` the adapter sends has an id of its own; the client's answer
    reaches the adapter, not the server; the re-call carries it under D31's `_meta`; the
    final result answers the client's call, by its id."""

    async def scenario() -> Wires:
        w = Wires()
        w.relay.from_client(HANDSHAKE)
        w.relay.from_server(INITIALIZED)
        w.relay.from_client(
            b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm",'
            b'"arguments":{"p":"x"},"_meta":{"progressToken":9}}}\n'
        )
        question = {"id": "ok", "text": "Sure?", "answer_type": "Boolean", "default": None}
        w.relay.from_server(_outcome_result(5, {"type": "needs_input", "question": question}))
        await settle()
        ask = w.last(w.client)
        assert ask["method"] == "elicitation/create" and ask["id"].startswith("jp-migrate-adapt:")
        assert ask["params"]["requestedSchema"]["properties"] == {"ok": {"type": "boolean"}}
        sent = len(w.server)
        w.relay.from_client(_accepted(ask["id"], {"ok": True}))
        await settle()
        assert len(w.server) == sent + 1  # the re-call, not the answer
        recall = w.last(w.server)
        assert recall["method"] == "tools/call" and recall["id"].startswith("jp-migrate-adapt:")
        tool = recall["params"]["_meta"]["computer.jp/tool"]
        assert tool == {
            "name": "rm",
            "arguments": {"p": "x"},
            "answers": {"ok": True},
            "options": {},
        }
        assert recall["params"]["_meta"]["progressToken"] == 9  # the client's own, relayed
        w.relay.from_server(_outcome_result(recall["id"], {"type": "success", "content": "done"}))
        await settle()
        return w

    w = anyio.run(scenario)
    assert w.last(w.client) == {
        "jsonrpc": "2.0",
        "id": 5,
        "result": {"content": [{"type": "text", "text": "done"}], "isError": False},
    }


def test_a_server_gone_during_a_question_round_fails_the_call(capsys: Any) -> None:
    async def scenario() -> Wires:
        w = Wires()
        w.relay.from_client(HANDSHAKE)
        w.relay.from_server(INITIALIZED)
        w.relay.from_client(
            b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm"}}\n'
        )
        question = {"id": "ok", "text": "Sure?", "answer_type": "Boolean", "default": None}
        w.relay.from_server(_outcome_result(5, {"type": "needs_input", "question": question}))
        await settle()
        ask = w.last(w.client)
        w.relay.from_client(_accepted(ask["id"], {"ok": True}))
        await settle()
        w.relay.server_gone("it was killed by SIGKILL")
        await settle()
        w.relay.from_client(b'{"jsonrpc":"2.0","id":6,"method":"prompts/list"}\n')
        return w

    w = anyio.run(scenario)
    failed, refused = (json.loads(line) for line in w.client[-2:])
    assert failed["id"] == 5 and failed["result"]["isError"] is True
    assert (
        "the MCP server is gone: it was killed by SIGKILL" in failed["result"]["content"][0]["text"]
    )
    assert refused == {
        "jsonrpc": "2.0",
        "id": 6,
        "error": {"code": -32000, "message": "the MCP server is gone: it was killed by SIGKILL"},
    }
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "error: MCP server 'srv': tools/call 'rm': it was killed by SIGKILL",
        "error: MCP server 'srv': prompts/list: the server is gone (it was killed by SIGKILL)",
    ]


def test_a_call_sent_before_initialize_is_answered_is_shaped_for_the_session() -> None:
    """A client may send its calls without waiting for `initialize`'s answer (a batch from a
    file): the converted result is shaped for the version negotiated, not the SDK's latest."""

    async def scenario() -> Wires:
        w = Wires()
        w.relay.from_client(HANDSHAKE)
        w.relay.from_client(
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}\n'
        )
        w.relay.from_server(INITIALIZED)
        w.relay.from_server(_outcome_result(1, {"type": "success", "content": "ok"}))
        return w

    w = anyio.run(scenario)
    assert w.last(w.client) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"content": [{"type": "text", "text": "ok"}], "isError": False},
    }


def test_a_2026_client_keeps_its_version_in_front_of_a_handshake_only_server() -> None:
    """A server built on mcp<2 knows only `initialize`; behind the adapter a 2026-07-28 client
    still speaks its version (the adapter makes the handshake in its name and answers
    `server/discover`), so a question comes back inside an `input_required` result."""
    script = str(Path(__file__).parent / "data" / "adapt" / "handshake_d31_server.py")

    async def observe(command: list[str]) -> tuple[str, list[str], Any, list[Any]]:
        params = StdioServerParameters(command=command[0], args=command[1:])
        async with Client(stdio_client(params), cache=None) as c:
            tools = [t.name for t in (await c.session.list_tools()).tools]
            first = await c.session.call_tool("go_on", {}, allow_input_required=True)
            if not isinstance(first, types.InputRequiredResult):
                return c.protocol_version, tools, first.model_dump(), []
            ((key, request),) = (first.input_requests or {}).items()
            answer = types.ElicitResult(action="accept", content={"ok": True})
            done = await c.session.call_tool(
                "go_on",
                {},
                input_responses={key: answer},
                request_state=first.request_state,
                allow_input_required=True,
            )
            assert isinstance(done, types.CallToolResult)
            return c.protocol_version, tools, request.params.message, _text(done)

    direct = anyio.run(observe, [PY, script])
    assert direct[0] == "2025-06-18"  # the client fell back to the handshake
    assert anyio.run(observe, [*ADAPT, PY, script]) == (
        "2026-07-28",
        ["go_on"],
        "Go on?",
        ["went on"],
    )


def _question_round(w: Wires, key: int) -> dict[str, Any]:
    """An older client's call `key` whose server asks a question: the adapter's elicitation."""
    w.relay.from_client(
        json.dumps(
            {"jsonrpc": "2.0", "id": key, "method": "tools/call", "params": {"name": "rm"}}
        ).encode()
        + b"\n"
    )
    question = {"id": "ok", "text": "Sure?", "answer_type": "Boolean", "default": None}
    w.relay.from_server(_outcome_result(key, {"type": "needs_input", "question": question}))
    return w.last(w.client)


def test_a_server_that_keeps_asking_is_stopped_after_max_questions() -> None:
    from jp_migrate.adapt.mcp import MAX_QUESTIONS

    w = Wires()
    w.relay.from_client(HANDSHAKE)
    w.relay.from_server(INITIALIZED)
    ask = _question_round(w, 5)
    asked = 1
    while ask.get("method") == "elicitation/create":
        w.relay.from_client(_accepted(ask["id"], {"ok": True}))
        recall = w.last(w.server)
        question = {"id": "ok", "text": "Again?", "answer_type": "Boolean", "default": None}
        w.relay.from_server(
            _outcome_result(recall["id"], {"type": "needs_input", "question": question})
        )
        ask = w.last(w.client)
        asked += 1
    assert asked == MAX_QUESTIONS + 1  # the last "ask" is the call's end
    assert ask["id"] == 5 and ask["result"]["isError"] is True
    assert (
        ask["result"]["content"][0]["text"] == f"Tool 'rm' asked {MAX_QUESTIONS} questions in a row"
    )
    assert w.relay.rounds == {}


def test_an_elicitation_the_client_fails_or_garbles_ends_the_call_with_an_error() -> None:
    w = Wires()
    w.relay.from_client(HANDSHAKE)
    w.relay.from_server(INITIALIZED)
    ask = _question_round(w, 5)
    error = {"code": -32600, "message": "no forms here"}
    w.relay.from_client(
        json.dumps({"jsonrpc": "2.0", "id": ask["id"], "error": error}).encode() + b"\n"
    )
    assert w.last(w.client) == {"jsonrpc": "2.0", "id": 5, "error": error}
    ask = _question_round(w, 6)
    garbled = {"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "maybe"}}
    sent = len(w.server)
    w.relay.from_client(json.dumps(garbled).encode() + b"\n")
    answer = w.last(w.client)
    assert answer["id"] == 6 and answer["error"]["code"] == -32603
    assert answer["error"]["message"].startswith("invalid elicitation answer: ")
    assert len(w.server) == sent  # the server is not called again
    assert w.relay.rounds == {}
