"""MCP tools through the bridge, end to end: the example server in both modes (RFD D31, MCP 2026-07-28)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from bridge_support import WIRE_SERVER, live_processes, python_on_path
from conftest import EXAMPLES, run_cli

WS = EXAMPLES / "tools"
SERVER = EXAMPLES / "mcp_server" / "server.py"


@pytest.fixture(autouse=True)
def _python3_is_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # The example config starts the server with `python3`: make that the interpreter with `mcp`.
    monkeypatch.setenv("PATH", python_on_path()["PATH"])


def bridge(tool: str, *extra: str, ws: Path = WS) -> tuple[int, dict, str]:
    proc = run_cli("bridge", "run", tool, "-w", str(ws), "--json", *extra)
    return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else {}), proc.stderr


CASES = [
    # tool, args, (protocol, text, is_error, transient) with --jp, then natively
    (
        "greet",
        {"name": "Ada"},
        ("mcp-outcome", "Hello, Ada!", False, False),
        ("mcp", "Hello, Ada!", False, False),
    ),
    (
        "divide",
        {"a": 1, "b": 0},
        (
            "mcp-outcome",
            '{"type": "error", "message": "cannot divide 1 by zero", "trace": [], "transient": false}',
            True,
            False,
        ),
        ("mcp", "cannot divide 1 by zero", True, False),
    ),
    (
        "service_status",
        {"service": "db"},
        (
            "mcp-outcome",
            '{"message":"service db is unreachable","trace":["connect: connection refused","retry later"]}',
            True,
            True,
        ),
        ("mcp", "service db is unreachable", True, True),
    ),
    (
        "read_snippet",
        {"path": "hello.py"},
        ("mcp-outcome", "Snippet hello.py:\n\n```python\nprint('hello')\n```", False, False),
        ("mcp", "Snippet hello.py:\n\n```python\nprint('hello')\n```", False, False),
    ),
]


@pytest.mark.parametrize(("tool", "args", "jp", "native"), CASES, ids=[c[0] for c in CASES])
def test_example_server_in_both_modes(tool: str, args: dict, jp: tuple, native: tuple) -> None:
    for name, expected in ((f"mcp_{tool}_jp", jp), (f"mcp_{tool}", native)):
        rc, outcome, err = bridge(name, "--args", json.dumps(args))
        observed = (
            outcome.get("protocol"),
            outcome.get("text"),
            outcome.get("is_error"),
            outcome.get("transient"),
        )
        assert observed == expected, err
        assert rc == (1 if expected[2] else 0)
        if name == "mcp_read_snippet":  # the native resource stays a typed block
            assert outcome["content"][1] == {
                "type": "resource",
                "resource": {
                    "uri": "snippet:///hello.py",
                    "mimeType": "text/x-python",
                    "text": "print('hello')\n",
                },
            }


@pytest.mark.parametrize(
    ("tool", "protocol"), [("mcp_delete_file_jp", "mcp-outcome"), ("mcp_delete_file", "mcp")]
)
def test_question_flow_answered_from_a_file(tmp_path: Path, tool: str, protocol: str) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text('{"confirm": true}', encoding="utf-8")
    rc, outcome, err = bridge(tool, "--args", '{"path": "a.txt"}', "--answers", f"@{answers}")
    assert (rc, outcome["protocol"], outcome["text"]) == (0, protocol, "deleted a.txt"), err


def test_unanswered_elicitation_names_the_question() -> None:
    rc, _, err = bridge("mcp_delete_file", "--args", '{"path": "a.txt"}')
    assert rc == 2 and "question 'confirm' (Delete a.txt?) has no answer" in err


# ── RFD D31's guard, as the bridge reads a live server ────────────────────────


@pytest.mark.parametrize(
    ("case", "protocol", "text", "is_error", "warns"),
    [
        ("valid", "mcp-outcome", "unwrapped", False, False),
        ("invalid", "mcp", '{"type": "success", "content": ', False, False),
        ("two", "mcp", '{"type": "success", "content": "unwrapped"}\n\nmore', False, False),
        ("is_error_success", "mcp", '{"type": "success", "content": "unwrapped"}', True, True),
    ],
)
def test_d31_guard_cases(case: str, protocol: str, text: str, is_error: bool, warns: bool) -> None:
    _, outcome, err = bridge(
        "mcp_d31_probe", "--args", json.dumps({"case": case}), "--protocol", "legacy"
    )
    assert (outcome["protocol"], outcome["text"], outcome["is_error"]) == (protocol, text, is_error)
    assert ("isError is true but the text is Outcome::Success" in err) == warns


# ── the request side: the _meta keys as the server receives them ──────────────


def _recording_workspace(tmp_path: Path, *server_args: str) -> tuple[Path, Path]:
    record = tmp_path / "meta.jsonl"
    jp = tmp_path / "ws" / ".jp"
    jp.mkdir(parents=True)
    args = json.dumps([str(SERVER), "--record", str(record), *server_args])
    (jp / "config.toml").write_text(
        f'[providers.mcp.rec]\ncommand = "python3"\narguments = {args}\n'
        '[conversation.tools.meta]\nsource = "mcp.rec.show_meta"\n'
        '[conversation.tools.ask]\nsource = "mcp.rec.delete_file"\n',
        encoding="utf-8",
    )
    return jp.parent, record


def test_meta_keys_as_the_server_receives_them(tmp_path: Path) -> None:
    ws, record = _recording_workspace(tmp_path)
    bridge("meta", "--args", "{}", ws=ws)
    bridge("meta", "--args", '{"x": 1}', "--options", '{"depth": 2}', ws=ws)
    first, second = (json.loads(line) for line in record.read_text().splitlines())
    assert first == {}  # omitted when answers and options are empty
    assert second == {
        "computer.jp/tool": {
            "name": "show_meta",
            "arguments": {"x": 1},
            "answers": {},
            "options": {"depth": 2},
        },
        "computer.jp/context": {"action": "run", "root": str(ws.resolve())},
    }


def test_d31_retry_carries_the_answers_in_meta(tmp_path: Path) -> None:
    ws, record = _recording_workspace(tmp_path, "--jp")
    rc, outcome, _ = bridge(
        "ask", "--args", '{"path": "b"}', "--answers", '{"confirm": false}', ws=ws
    )
    assert (rc, outcome["text"]) == (0, "kept b")
    (only,) = (json.loads(line) for line in record.read_text().splitlines())
    assert only["computer.jp/tool"]["answers"] == {"confirm": False}


def test_input_required_retry_reaches_the_same_server(tmp_path: Path) -> None:
    ws, record = _recording_workspace(tmp_path)
    rc, outcome, _ = bridge(
        "ask", "--args", '{"path": "b"}', "--answers", '{"confirm": true}', ws=ws
    )
    assert (rc, outcome["protocol"], outcome["text"]) == (0, "mcp", "deleted b")
    calls = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(calls) == 2  # the first call, then the retry with the elicitation answer


# ── bad input: one line, non-zero exit, no orphan server ──────────────────────


def _workspace(tmp_path: Path, command: str, args: list[str], tool: str) -> Path:
    jp = tmp_path / "ws" / ".jp"
    jp.mkdir(parents=True)
    (jp / "config.toml").write_text(
        f"[providers.mcp.s]\ncommand = {json.dumps(command)}\narguments = {json.dumps(args)}\n"
        f'[conversation.tools.t]\nsource = "mcp.s.{tool}"\n',
        encoding="utf-8",
    )
    return jp.parent


def _one_line(rc: int, err: str, *needles: str) -> None:
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def test_server_that_exits_at_start(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "python3", [str(SERVER), "--exit-at-start"], "greet")
    rc, _, err = bridge("t", "--args", '{"name": "x"}', ws=ws)
    _one_line(rc, err, "MCP server 's': start failed", "refusing to start")


def test_server_that_cannot_be_spawned(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "/no/such/server", [], "greet")
    rc, _, err = bridge("t", ws=ws)
    _one_line(rc, err, "cannot start '/no/such/server'")


def test_json_rpc_error_from_a_live_server(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "python3", [str(SERVER)], "rpc_error")
    rc, _, err = bridge("t", "--args", '{"code": -32601}', ws=ws)
    _one_line(rc, err, "tools/call 'rpc_error' failed with JSON-RPC method not found -32601")


@pytest.mark.parametrize(
    ("code", "kind"),
    [(-32700, "parse error"), (-32600, "invalid request"), (-32601, "method not found"),
     (-32602, "invalid params"), (-32603, "internal error")],
)  # fmt: skip
def test_each_json_rpc_error_code_is_named(code: int, kind: str) -> None:
    from mcp import MCPError

    from jp_migrate.bridge.config import McpServer
    from jp_migrate.bridge.mcp_client import McpSession

    session = McpSession(McpServer("s", "python3"), Path("."))
    error = session._fail(MCPError(code, "boom"), "tools/call 't'")
    assert str(error) == f"MCP server 's': tools/call 't' failed with JSON-RPC {kind} {code}: boom"


def test_a_hanging_call_times_out_and_leaves_no_server(tmp_path: Path) -> None:
    marker = str(tmp_path / "marker")
    ws = _workspace(tmp_path, sys.executable, [str(SERVER), "--record", marker], "sleep")
    # Generous: on a loaded machine the server's own start-up can take seconds.
    rc, _, err = bridge("t", "--args", '{"seconds": 120}', "--timeout", "8", ws=ws)
    _one_line(rc, err, "timed out after 8s")
    assert live_processes(marker) == []


def test_a_tool_the_server_does_not_offer_cannot_run(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, "python3", [str(SERVER)], "does_not_exist")
    rc, _, err = bridge("t", ws=ws)
    _one_line(rc, err, "MCP server 's': has no tool 'does_not_exist' (it offers: ", "greet")


def test_a_server_printing_junk_on_stdout_is_one_warning(tmp_path: Path) -> None:
    noisy = tmp_path / "noisy.py"
    noisy.write_text(
        "import runpy, sys\n"
        "print('junk before the protocol', flush=True)\n"
        f"sys.argv = [{str(SERVER)!r}]\n"
        f"runpy.run_path({str(SERVER)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    ws = _workspace(tmp_path, "python3", [str(noisy)], "greet")
    rc, out, err = bridge("t", "--args", '{"name": "Ada"}', ws=ws)
    assert rc == 0 and out["text"] == "Hello, Ada!", err
    assert "Traceback" not in err
    (line,) = [line for line in err.splitlines() if line.strip()]
    assert line.startswith("warning: MCP SDK: Failed to parse JSONRPC message from server: ")


def test_a_server_that_never_answers_is_bounded_by_its_startup_timeout_not_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As in JP: `startup_timeout_secs` bounds the start, `--timeout` each call.

    The SDK's fixed 10 s `server/discover` probe is made short here; its fallback
    `initialize` must not then fail by the per-call timeout.
    """
    import time

    import mcp.client.session

    from jp_migrate.bridge.config import McpServer
    from jp_migrate.bridge.errors import BridgeError
    from jp_migrate.bridge.mcp_client import McpSession

    monkeypatch.setattr(mcp.client.session, "DISCOVER_TIMEOUT_SECONDS", 0.3)
    marker = str(tmp_path / "silent-server")
    script = ("-c", "import time; time.sleep(60)", marker)
    server = McpServer("s", sys.executable, script, startup_timeout=2.5)
    started = time.monotonic()
    with pytest.raises(BridgeError) as caught:
        anyio.run(McpSession(server, tmp_path, timeout=0.5).__aenter__)
    elapsed = time.monotonic() - started
    assert str(caught.value) == (
        "MCP server 's': start timed out after 2.5s (startup_timeout_secs)"
    )
    assert live_processes(marker) == []
    # and it was killed, not given the SDK's exit grace on top (it had taken 5 s and more)
    from mcp.client.stdio import PROCESS_TERMINATION_TIMEOUT

    assert 2.5 <= elapsed < 2.5 + PROCESS_TERMINATION_TIMEOUT




def test_a_result_the_sdk_refuses_is_one_line_naming_the_field(tmp_path: Path) -> None:
    server = tmp_path / "raw_server.py"
    server.write_text(WIRE_SERVER)
    result = '{"content": [{"type": "text", "text": "ok"}, {"type": "text"}]}'
    ws = _workspace(tmp_path, sys.executable, [str(server), result], "t")
    rc, _, err = bridge("t", "--timeout", "20", ws=ws)
    _one_line(rc, err, "tools/call 't' failed: the server sent an invalid CallToolResult: content.1")


def test_what_a_server_started_does_not_outlive_the_run(tmp_path: Path) -> None:
    """A server that exits cleanly leaves its background children in its process group:
    they are killed with it, as a local tool's are (they had been left running)."""
    marker = str(tmp_path / "left-behind")
    server = tmp_path / "spawning_server.py"
    server.write_text(
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', "
        f"{marker!r}], stdin=subprocess.DEVNULL,\n"
        "                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        + WIRE_SERVER.replace("RESULT = json.loads(sys.argv[1])", "RESULT = {'content': []}"),
        encoding="utf-8",
    )
    ws = _workspace(tmp_path, sys.executable, [str(server)], "t")
    rc, _, err = bridge("t", "--timeout", "20", ws=ws)
    assert rc == 0, err
    assert live_processes(marker) == []


def test_a_group_id_taken_by_another_process_since_is_left_alone() -> None:
    """Once a server's group is empty its id may go to a new process: that one is not killed."""
    import subprocess

    from jp_migrate.bridge.groups import Group

    other = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        group = Group.of(other.pid)
        assert group.started is not None
        Group(other.pid, str(int(group.started) - 1)).kill()  # the server had started earlier
        assert other.poll() is None
        group.kill()  # the server's own group
        assert other.wait(timeout=5) == -9
    finally:
        other.kill()
        other.wait()


COUNTING_SERVER = WIRE_SERVER.replace(
    "RESULT = json.loads(sys.argv[1])", "calls = 0"
).replace(
    "        res = RESULT\n",
    "        calls += 1\n"
    "        res = {'content': [{'type': 'text', 'text': f'call {calls}'}]}\n",
)


def test_verify_never_runs_the_control_and_the_candidate_on_one_server(tmp_path: Path) -> None:
    """A server with state (a call counter) answers both sides alike only if each side has
    its own server process; one shared server had made every case a mismatch."""
    server = tmp_path / "counting_server.py"
    server.write_text(COUNTING_SERVER, encoding="utf-8")
    ws = _workspace(tmp_path, sys.executable, [str(server)], "t")
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"arguments": {}}\n{"arguments": {}}\n', encoding="utf-8")
    proc = run_cli("verify", "--tool", "t", "-w", str(ws), "--cases", str(cases))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 match" in proc.stdout, proc.stdout


CONFIRMING_SERVER = """\
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (CallToolResult, ElicitRequest, ElicitRequestFormParams, ElicitResult,
                       InputRequiredResult, TextContent)

server = MCPServer("confirming")


@server.tool()
def go(ctx: Context) -> CallToolResult | InputRequiredResult:
    response = (ctx.input_responses or {}).get("sure")
    if not isinstance(response, ElicitResult):
        form = ElicitRequestFormParams(message="Go ahead?", requested_schema={"type": "object", "properties": {}})
        return InputRequiredResult(input_requests={"sure": ElicitRequest(params=form)})
    said = f"{response.action} {response.content!r}"
    return CallToolResult(content=[TextContent(type="text", text=said)])


server.run()
"""


@pytest.mark.parametrize(("answer", "sent"), [("true", "accept {}"), ("false", "decline None")])
def test_a_form_without_fields_is_accepted_or_declined(
    tmp_path: Path, answer: str, sent: str
) -> None:
    """A form with no fields is a yes/no: "no" declines it. It had been sent as an accept
    holding a field the form never had ({"sure": false})."""
    server = tmp_path / "confirming_server.py"
    server.write_text(CONFIRMING_SERVER, encoding="utf-8")
    ws = _workspace(tmp_path, sys.executable, [str(server)], "go")
    rc, out, err = bridge("t", "--answers", f'{{"sure": {answer}}}', "--no-input", ws=ws)
    assert rc == 0, err
    assert out["text"] == sent


def test_a_server_hung_in_a_timed_out_call_is_killed_not_waited_for(tmp_path: Path) -> None:
    """After a timeout the SDK's shutdown would give the hung server seconds to exit: it is
    killed at once, so `--timeout 1` ends a run about a second after the call began."""
    import time

    from mcp.client.stdio import PROCESS_TERMINATION_TIMEOUT

    from jp_migrate.bridge.config import McpServer
    from jp_migrate.bridge.errors import BridgeError
    from jp_migrate.bridge.mcp_client import McpSession

    marker = str(tmp_path / "hung")
    server = McpServer("s", sys.executable, (str(SERVER), "--record", marker))

    async def leaving() -> float:
        """How long leaving the session takes, after its call timed out."""
        async with McpSession(server, tmp_path, timeout=1) as session:
            with pytest.raises(BridgeError, match="timed out after 1s"):
                await session.call("sleep", {"seconds": 120}, meta=None)
            started = time.monotonic()
        return time.monotonic() - started

    assert anyio.run(leaving) < PROCESS_TERMINATION_TIMEOUT  # the grace: not waited
    assert live_processes(marker) == []


def test_what_the_server_writes_to_stderr_during_the_call_is_in_the_outcome(
    tmp_path: Path,
) -> None:
    """As a local tool's stderr is (it had always been empty for MCP tools)."""
    server = tmp_path / "logging_server.py"
    server.write_text(
        "import sys\nprint('starting up', file=sys.stderr, flush=True)\n"
        + WIRE_SERVER.replace(
            "        res = RESULT\n",
            "        print('called t', file=sys.stderr, flush=True)\n        res = RESULT\n",
        ),
        encoding="utf-8",
    )
    ws = _workspace(tmp_path, sys.executable, [str(server), '{"content": []}'], "t")
    rc, out, err = bridge("t", ws=ws)
    assert rc == 0, err
    assert out["stderr"] == "called t\n"  # the call's part, not the start-up's


OPTIONAL_FIELD_SERVER = CONFIRMING_SERVER.replace(
    '{"type": "object", "properties": {}}',
    '{"type": "object", "properties": {"name": {"type": "string"}, "nick": {"type": "string"}},'
    ' "required": ["name"]}',
)


def test_an_optional_form_field_nobody_answers_is_left_out(tmp_path: Path) -> None:
    """MCP forms mark optional fields (not in `required`): without an answer, a prompt or a
    default such a field is left out of the form. It had been an error ("no answer")."""
    server = tmp_path / "optional_server.py"
    server.write_text(OPTIONAL_FIELD_SERVER, encoding="utf-8")
    ws = _workspace(tmp_path, sys.executable, [str(server)], "go")
    rc, out, err = bridge("t", "--answers", '{"name": "Ada"}', "--no-input", ws=ws)
    assert rc == 0, err
    assert out["text"] == "accept {'name': 'Ada'}"
    rc, out, err = bridge("t", "--answers", '{"name": "Ada", "nick": "A"}', "--no-input", ws=ws)
    assert rc == 0 and out["text"] == "accept {'name': 'Ada', 'nick': 'A'}", err
    rc, _, err = bridge("t", "--answers", '{"nick": "A"}', "--no-input", ws=ws)  # required: named
    _one_line(rc, err, "'name'", "has no answer and no default")


def test_a_server_that_dies_at_start_leaves_nothing_behind(tmp_path: Path) -> None:
    """What a server started before it failed dies with it (the group had been found only
    after the handshake, so such children lived on)."""
    marker = str(tmp_path / "orphan")
    server = tmp_path / "dying_server.py"
    server.write_text(
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', "
        f"{marker!r}], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,\n"
        "                 stderr=subprocess.DEVNULL)\n"
        "time.sleep(0.3)\n"
        "sys.exit('refusing to start')\n",
        encoding="utf-8",
    )
    ws = _workspace(tmp_path, sys.executable, [str(server)], "t")
    rc, _, err = bridge("t", ws=ws)
    _one_line(rc, err, "start failed")
    assert live_processes(marker) == []


def test_an_error_line_shows_control_characters_instead_of_sending_them(tmp_path: Path) -> None:
    """The last line of a failing server's stderr is quoted in the error: escaped."""
    server = tmp_path / "noisy_dying_server.py"
    server.write_text(
        "import sys\nsys.stderr.write('boom \\x1b]0;TITLE\\x07 \\x9b2J\\n')\nsys.exit(3)\n",
        encoding="utf-8",
    )
    ws = _workspace(tmp_path, sys.executable, [str(server)], "t")
    rc, _, err = bridge("t", ws=ws)
    _one_line(rc, err, "start failed", "(stderr: boom \\x1b]0;TITLE\\x07 \\x9b2J)")
    assert "\x1b" not in err and "\x9b" not in err
