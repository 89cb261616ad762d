"""`jp-migrate adapt --mcp`: the example server's `--jp` mode behind the adapter, against its
native mode and against the legacy host's reading of `--jp` (RFD D31, SPEC §2)."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from conftest import EXAMPLES
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from jp_migrate.bridge.config import McpServer
from jp_migrate.bridge.mcp_client import McpSession
from jp_migrate.bridge.protocol import interpret_mcp
from jp_migrate.convert.compare import compare

SERVER = str(EXAMPLES / "mcp_server" / "server.py")
PY = sys.executable
ADAPT = (PY, "-m", "jp_migrate", "adapt", "--mcp", "--")


def adapted(*server_args: str) -> McpServer:
    return McpServer("adapted", PY, (*ADAPT[1:], PY, SERVER, "--jp", *server_args))


NATIVE = McpServer("native", PY, (SERVER,))
D31 = McpServer("d31", PY, (SERVER, "--jp"))

CALLS = [
    ("greet", {"name": "Zoë 🌱"}),
    ("divide", {"a": 7, "b": 2}),
    ("divide", {"a": 1, "b": 0}),
    ("service_status", {"service": "web"}),
    ("service_status", {"service": "db"}),
    ("read_snippet", {"path": "hello.py"}),
    ("read_snippet", {"path": "config.json"}),
    ("read_snippet", {"path": "nope"}),
]


def _results(server: McpServer, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    async def results() -> list[dict[str, Any]]:
        async with McpSession(server, Path.cwd(), timeout=60) as session:
            return [(await session.call(name, args, meta=None)).result for name, args in calls]  # type: ignore[misc]

    return anyio.run(results)


@pytest.fixture(scope="module")
def observed() -> dict[str, list[dict[str, Any]]]:
    return {
        name: _results(server, CALLS)
        for name, server in (("native", NATIVE), ("d31", D31), ("adapted", adapted()))
    }


@pytest.mark.parametrize("index", range(len(CALLS)), ids=[f"{n}{a}" for n, a in CALLS])
def test_adapted_reads_as_the_native_server_does(observed: dict, index: int) -> None:
    """The new host reading the adapter sees what it sees reading the native server."""
    native = interpret_mcp(observed["native"][index], "t", "blocks").outcome
    candidate = interpret_mcp(observed["adapted"][index], "t", "blocks").outcome
    assert compare(native, candidate).verdict == "match"


@pytest.mark.parametrize("index", range(len(CALLS)), ids=[f"{n}{a}" for n, a in CALLS])
def test_adapted_against_the_legacy_hosts_reading_of_d31(observed: dict, index: int) -> None:
    control = interpret_mcp(observed["d31"][index], "t", "legacy").outcome
    candidate = interpret_mcp(observed["adapted"][index], "t", "blocks").outcome
    verdict = compare(control, candidate)
    assert verdict.verdict in ("match", "expected"), verdict


def test_errors_carry_transient_and_trace_under_meta(observed: dict) -> None:
    result = observed["adapted"][CALLS.index(("service_status", {"service": "db"}))]
    assert result["isError"] is True
    assert result["content"] == [{"type": "text", "text": "service db is unreachable"}]
    assert result["_meta"]["computer.jp/error"] == {
        "transient": True,
        "trace": ["connect: connection refused", "retry later"],
    }


@pytest.mark.parametrize("case", ["two", "invalid", "is_error_success"])
def test_native_results_pass_through_untouched(case: str) -> None:
    """What D31 would not unwrap is not touched (its content and isError as the server sent)."""
    direct, through = (_results(s, [("d31_probe", {"case": case})])[0] for s in (D31, adapted()))
    strip = lambda r: {k: v for k, v in r.items() if k != "_meta"}
    assert strip(through) == strip(direct)


def test_tools_list_passes_through() -> None:
    async def names(server: McpServer) -> list[dict[str, Any]]:
        params = StdioServerParameters(command=server.command, args=list(server.args))
        async with Client(stdio_client(params), cache=None) as client:
            listed = await client.session.list_tools()
            return [
                t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools
            ]

    assert anyio.run(names, adapted()) == anyio.run(names, D31)


def test_a_question_becomes_an_input_required_elicitation(tmp_path: Path) -> None:
    """MCP 2026-07-28: the same elicitation the native server sends; the answer reaches the
    D31 server on its re-call under _meta."computer.jp/tool".answers."""
    record = tmp_path / "meta.jsonl"
    outcomes = {}

    async def asked_then_answered(server: McpServer) -> tuple[Any, Any]:
        async with McpSession(server, tmp_path, timeout=60) as session:
            first = await session.call("delete_file", {"path": "notes.txt"}, meta=None)
            assert first.pending is not None
            done = await session.call(
                "delete_file",
                {"path": "notes.txt"},
                meta=None,
                pending=first.pending,
                answers={"confirm": True},
            )
        return first, done

    for name, server in (("native", NATIVE), ("adapted", adapted("--record", str(record)))):
        first, done = anyio.run(asked_then_answered, server)
        outcomes[name] = (
            [q.model_dump(by_alias=True) for q in first.pending.forms.questions],
            done.result,
        )
    assert (
        outcomes["adapted"][0]
        == outcomes["native"][0]
        == [
            {
                "id": "confirm",
                "text": "Delete notes.txt?",
                "schema": {"type": "boolean"},
                "default": None,
            }
        ]
    )
    assert outcomes["adapted"][1]["content"] == [{"type": "text", "text": "deleted notes.txt"}]
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    assert calls[0] == {}  # the first call: no answers, no _meta (D31)
    assert calls[-1]["computer.jp/tool"]["answers"] == {"confirm": True}
    assert calls[-1]["computer.jp/tool"]["name"] == "delete_file"


def _legacy_client(server: McpServer, answer: Callable[[Any, Any], Awaitable[Any]]) -> Client:
    params = StdioServerParameters(command=server.command, args=list(server.args))
    return Client(stdio_client(params), cache=None, mode="legacy", elicitation_callback=answer)


@pytest.mark.parametrize(
    ("action", "text", "is_error"),
    [
        ("accept", "deleted notes.txt", False),
        ("decline", "Tool 'delete_file' needed an answer to 'confirm', which was declined.", True),
    ],
)
def test_an_older_client_gets_an_elicitation_create_request(
    action: str, text: str, is_error: bool
) -> None:
    asked: list[str] = []

    async def answer(_ctx: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        content = {"confirm": True} if action == "accept" else None
        return types.ElicitResult(action=action, content=content)

    async def call() -> types.CallToolResult:
        async with _legacy_client(adapted(), answer) as client:
            assert client.protocol_version < "2026-07-28"
            return await client.call_tool("delete_file", {"path": "notes.txt"})

    result = anyio.run(call)
    assert asked == ["Delete notes.txt?"]
    assert [c.text for c in result.content] == [text]
    assert result.is_error is is_error


def test_a_json_rpc_error_passes_through() -> None:
    async def call() -> None:
        async with McpSession(adapted(), Path.cwd(), timeout=60) as session:
            await session.call("rpc_error", {"code": -32602}, meta=None)

    with pytest.raises(Exception, match="-32602"):
        anyio.run(call)


def test_a_server_dying_mid_call_is_one_line_and_an_error_result(tmp_path: Path) -> None:
    started = tmp_path / "pids"
    errlog = tmp_path / "stderr"

    async def scenario() -> tuple[types.CallToolResult, types.CallToolResult]:
        server = adapted("--log-start", str(started))
        params = StdioServerParameters(command=server.command, args=list(server.args))
        with errlog.open("w") as err:
            async with Client(stdio_client(params, errlog=err), cache=None) as client:
                pid = int(started.read_text().split()[0])

                async def kill() -> None:
                    await anyio.sleep(1.0)
                    os.kill(pid, signal.SIGKILL)

                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(kill)
                    mid = await client.session.call_tool("sleep", {"seconds": 30})
                after = await client.session.call_tool("greet", {"name": "x"})
                return mid, after

    mid, after = anyio.run(scenario)
    for result in (mid, after):
        assert result.is_error is True
        assert "the MCP server is gone" in result.content[0].text
    lines = errlog.read_text().splitlines()
    assert len(lines) == 2 and all(line.startswith("error: MCP server") for line in lines), lines
    assert "Traceback" not in errlog.read_text()


def test_a_server_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    """The client stays connected (stdin open, as a host waiting for `initialize`'s answer):
    the server's own failure is what ends the session. (A client that leaves at once lets
    the adapter stop a server still starting, after CLOSE_SECONDS: exit 0, nothing to say.)"""
    import subprocess

    for command in ([str(tmp_path / "missing")], [PY, SERVER, "--jp", "--exit-at-start"]):
        proc = subprocess.Popen(
            [*ADAPT, *command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            code = proc.wait(timeout=120)
            stderr = proc.stderr.read().decode() if proc.stderr else ""
        finally:
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
        assert code == 2, stderr
        errors = [line for line in stderr.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1 and "did not start" in errors[0], stderr
        assert "Traceback" not in stderr


def test_a_form_fields_default_is_the_questions_not_its_schemas() -> None:
    """A form field's default is pulled out of the answer's schema into the question's own
    `default`, as a question block has it: a legacy question with a default and the form it
    becomes compare equal (the bridge's normalization, SPEC §5)."""
    from jp_migrate.adapt.outcome_result import Question
    from jp_migrate.bridge.forms import form_of

    question = Question("style", "Which style?", {"type": "string", "enum": ["a", "b"]}, None, "a")
    form = types.ElicitRequestFormParams(message=question.text, requested_schema=question.form())
    parsed = form_of("style", types.ElicitRequest(params=form), set())
    (normalized,), optional = parsed.questions, parsed.optional
    assert normalized.model_dump(by_alias=True) == {
        "id": "style",
        "text": "Which style?",
        "schema": {"type": "string", "enum": ["a", "b"]},
        "default": "a",
    }
    assert optional == frozenset()


def test_resources_and_prompts_pass_through() -> None:
    script = str(Path(__file__).parent / "data" / "adapt" / "d31_server.py")

    async def observe(command: list[str]) -> list[Any]:
        params = StdioServerParameters(command=command[0], args=command[1:])
        async with Client(stdio_client(params), cache=None) as client:
            s = client.session
            seen = [
                await s.list_resources(),
                await s.list_resource_templates(),
                await s.read_resource("notes://readme"),
                await s.read_resource("notes://todo"),
                await s.list_prompts(),
                await s.get_prompt("review", {"path": "a.py"}),
            ]
            dumped = [r.model_dump(mode="json", by_alias=True, exclude_none=True) for r in seen]
            return [{k: v for k, v in r.items() if k != "_meta"} for r in dumped]

    direct = anyio.run(observe, [PY, script])
    through = anyio.run(observe, [*ADAPT, PY, script])
    assert through == direct
    assert direct[2]["contents"][0]["text"] == "# Notes\n\nZoë's notes 🌱\n"
    assert direct[5]["messages"][0]["content"]["text"] == "Please review a.py."


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_ends_the_session_and_the_server(tmp_path: Path, signum: int) -> None:
    """The client still connected (stdin open): the adapter passes the signal on to the
    server's group, and exits; neither is left behind."""
    import subprocess

    started = tmp_path / "pids"
    proc = subprocess.Popen(
        [*ADAPT, PY, SERVER, "--jp", "--log-start", str(started)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not (started.exists() and started.read_text().strip()):
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        server = int(started.read_text().split()[0])
        time.sleep(1.0)  # past the start: the adapter is serving
        proc.send_signal(signum)
        _, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 128 + signum
    assert b"Traceback" not in stderr
    deadline = time.monotonic() + 10
    while _running(server):
        assert time.monotonic() < deadline, "the server outlived the adapter"
        time.sleep(0.05)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_pipe_lines_and_writer() -> None:
    """The adapter's stdio: lines split anywhere (a UTF-8 character too), a last line
    without its newline, whole writes of more than a pipe holds, and two threads writing
    such lines at once never interleave them."""
    import threading

    from jp_migrate.adapt.pipes import Sink, read_lines

    read, write = os.pipe()
    got: list[bytes] = []
    reader = threading.Thread(target=read_lines, args=(read, got.append))
    reader.start()
    sink = Sink(write)
    head = '{"a": "Zoë 🌱"}\n{"b": 2}\n'.encode()
    for start in range(0, len(head), 7):  # 🌱 split across two writes
        sink.write(head[start : start + 7])
        time.sleep(0.01)
    big = [bytes([c]) * 200_000 + b"\n" for c in b"xy"]  # each more than a pipe holds
    writers = [threading.Thread(target=sink.write, args=(line,)) for line in big]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    sink.write(b"last")
    sink.close()
    reader.join(60)
    os.close(read)
    assert not reader.is_alive()
    assert got[:2] == ['{"a": "Zoë 🌱"}\n'.encode(), b'{"b": 2}\n']
    assert sorted(got[2:4]) == big
    assert got[4:] == [b"last\n"]


def test_a_third_party_native_server_passes_through_untouched() -> None:
    """mcp-server-time (the MCP project's reference server, not written by us): its tools,
    a structured result and an error result are the same through the adapter."""
    pytest.importorskip("mcp_server_time", reason="mcp-server-time is not installed")

    async def observe(command: list[str]) -> list[dict[str, Any]]:
        params = StdioServerParameters(command=command[0], args=command[1:])
        async with Client(stdio_client(params), cache=None) as client:
            s = client.session
            seen = [
                await s.list_tools(),
                await s.call_tool(
                    "convert_time",
                    {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
                ),
                await s.call_tool("get_current_time", {"timezone": "Nowhere/Invalid"}),
            ]
            dumped = [r.model_dump(mode="json", by_alias=True, exclude_none=True) for r in seen]
            # The date is today's: the two sessions may fall on either side of a midnight.
            text = re.sub(r"\d{4}-\d{2}-\d{2}T", "<today>T", json.dumps(dumped))
            return [{k: v for k, v in r.items() if k != "_meta"} for r in json.loads(text)]

    direct = anyio.run(observe, [PY, "-m", "mcp_server_time"])
    through = anyio.run(observe, [*ADAPT, PY, "-m", "mcp_server_time"])
    assert through == direct
    assert direct[1]["structuredContent"]["target"]["timezone"] == "Asia/Tokyo"
    assert direct[2]["isError"] is True


def test_a_server_the_adapter_stops_is_not_reported_as_failing(tmp_path: Path) -> None:
    """The client goes while the server hangs (ignoring SIGTERM, a request unanswered): the
    adapter ends it, exits 0 and says nothing of it; no process of it is left."""
    import subprocess

    pids = tmp_path / "pid"
    hung = f'trap "" TERM; echo $$ > {pids}; exec sleep 600'
    request = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    done = subprocess.run(
        [*ADAPT, "sh", "-c", hung], input=request, capture_output=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not _running(int(pids.read_text()))
