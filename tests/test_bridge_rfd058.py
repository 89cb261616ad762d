"""What RFD 058 adds to the MCP client: declared elicitation, one question flow, sampling
refused, resource links kept, answers checked, the start deadline counted from the spawn.

The servers here are built on the official SDK's own machinery (a resolver asking
through `Elicit`) or speak raw JSON-RPC to send what a server may send; the
reference servers are in test_bridge_real_servers.py.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from bridge_support import WIRE_SERVER, asking_server, live_processes, python_on_path
from conftest import EXAMPLES, run_cli
from real_servers import workspace

RESOLVER_SERVER = """\
from typing import Annotated

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Elicit, MCPServer, Resolve

server = MCPServer("asking")


class Person(BaseModel):
    name: str = Field(title="String", description="Your full, legal name")


def who() -> Elicit[Person]:
    return Elicit("Who are you?", Person)


@server.tool()
def ask(person: Annotated[Person, Resolve(who)]) -> str:
    return f"hello {person.name}"


server.run()
"""


@pytest.fixture(autouse=True)
def _python3_is_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # The example config starts its server with `python3`: the interpreter with `mcp`.
    monkeypatch.setenv("PATH", python_on_path()["PATH"])


def bridge(ws: Path, tool: str, *extra: str) -> tuple[int, dict, str]:
    proc = run_cli("bridge", "run", tool, "-w", str(ws), "--json", *extra)
    return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else {}), proc.stderr


def _one_line(rc: int, err: str, *needles: str) -> None:
    lines = [line for line in err.splitlines() if not line.startswith("warning: ")]
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def _server(tmp_path: Path, source: str, tool: str, *args: str) -> Path:
    script = tmp_path / "server.py"
    script.write_text(source, encoding="utf-8")
    return workspace(tmp_path / "ws", "s", [sys.executable, str(script), *args], {"t": tool})


# ── 1. elicitation declared on the RFD 058 side, not on the legacy side ──────


def test_the_sdk_standard_elicitation_reaches_the_question_flow(tmp_path: Path) -> None:
    """A resolver returning `Elicit` asks only a client that declared form elicitation; it
    had refused ("Client did not declare the form elicitation capability", -32021)."""
    ws = _server(tmp_path, RESOLVER_SERVER, "ask")
    rc, out, err = bridge(ws, "t", "--answers", '{"name": "Ada"}', "--no-input")
    assert (rc, out["text"]) == (0, "hello Ada"), err


def test_the_legacy_host_declares_no_elicitation_as_jp_does(tmp_path: Path) -> None:
    ws = _server(tmp_path, RESOLVER_SERVER, "ask")
    rc, _, err = bridge(ws, "t", "--answers", '{"name": "Ada"}', "--protocol", "legacy")
    _one_line(rc, err, "Client did not declare the form elicitation capability", "(-32021)")


# ── 5. answers checked against the question's schema ─────────────────────────


def test_an_answer_that_does_not_fit_the_schema_is_refused_before_it_is_sent() -> None:
    """--answers had been sent as they were (a string for a boolean). (A local tool gets the
    answers known up front in its context on the first run, as in JP, before any question.)"""
    rc, _, err = bridge(
        EXAMPLES / "tools",
        "mcp_delete_file",
        "--args",
        '{"path": "a.txt"}',
        "--answers",
        '{"confirm": "yes"}',
    )
    _one_line(
        rc,
        err,
        "question 'confirm' (Delete a.txt?): the answer \"yes\" does not fit its schema: "
        "'yes' is not of type 'boolean'",
    )


def test_an_elicitation_answer_is_checked_too(tmp_path: Path) -> None:
    ws = _server(tmp_path, RESOLVER_SERVER, "ask")
    rc, _, err = bridge(ws, "t", "--answers", '{"name": 7}', "--no-input")
    _one_line(rc, err, "question 'name'", "the answer 7 does not fit its schema", "'string'")


# ── sampling: no model in this runtime ────────────────────────────────────────

def test_a_sampling_request_is_refused_saying_there_is_no_model(tmp_path: Path) -> None:
    message = {"role": "user", "content": {"type": "text", "text": "hi"}}
    request = {"messages": [message], "maxTokens": 5}
    server = asking_server(tmp_path, "sampling/createMessage", request)
    ws = workspace(tmp_path / "ws", "s", server, {"t": "t"})
    rc, out, err = bridge(ws, "t", "--timeout", "30")
    assert rc == 0, err
    refusal = json.loads(out["text"])
    assert refusal["message"].startswith("no model in this runtime")
    assert "warning: the server asked for a model's completion (sampling/createMessage): " in err


SAMPLING_INPUT_REQUIRED = """\
from mcp.server.mcpserver import MCPServer
from mcp_types import (CallToolResult, CreateMessageRequest, CreateMessageRequestParams,
                       InputRequiredResult, SamplingMessage, TextContent)

server = MCPServer("sampler")


@server.tool()
def t() -> CallToolResult | InputRequiredResult:
    params = CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text="hi"))],
        max_tokens=5,
    )
    return InputRequiredResult(input_requests={"llm": CreateMessageRequest(params=params)})


server.run()
"""


def test_a_sampling_input_request_is_one_line_saying_there_is_no_model(tmp_path: Path) -> None:
    ws = _server(tmp_path, SAMPLING_INPUT_REQUIRED, "t")
    rc, _, err = bridge(ws, "t", "--timeout", "30")
    _one_line(rc, err, "sampling/createMessage, llm): no model in this runtime")


# ── 2. resource links from a server that offers no resources ─────────────────

LINK_RESULT = json.dumps(
    {
        "content": [
            {
                "type": "resource_link",
                "uri": "file:///r/a.md",
                "name": "a.md",
                "mimeType": "text/markdown",
            }
        ]
    }
)


def test_a_link_to_a_server_without_resources_is_a_reference_line(tmp_path: Path) -> None:
    """A tool returning only a link had completed with no content and empty text."""
    ws = _server(tmp_path, WIRE_SERVER, "t", LINK_RESULT)
    rc, out, err = bridge(ws, "t", "--timeout", "30")
    assert rc == 0, err
    assert out["text"] == "[resource link file:///r/a.md (a.md, text/markdown)]"
    assert out["content"] == [{"type": "text", "text": out["text"]}]
    assert "warning" not in err


def test_the_legacy_host_drops_the_link_and_says_so(tmp_path: Path) -> None:
    ws = _server(tmp_path, WIRE_SERVER, "t", LINK_RESULT)
    rc, out, err = bridge(ws, "t", "--timeout", "30", "--protocol", "legacy")
    assert (rc, out["text"], out["content"]) == (0, "", []), err
    assert "resource_link file:///r/a.md dropped: JP's legacy host drops resource links" in err


# ── 3. the start deadline counts from the spawn ───────────────────────────────

SILENT_SERVER = """\
import sys, time
with open(sys.argv[1], "w") as fh:
    fh.write(repr(time.monotonic()))
time.sleep(60)
"""


def test_the_start_deadline_counts_from_the_spawn_not_from_the_sdk_import(
    tmp_path: Path,
) -> None:
    """A fresh `jp-migrate` loads the SDK before it spawns the server: the server gets its
    whole startup_timeout_secs (the SDK import had counted against it, 0.7 to 2 s), a start
    that times out says so (it had said "Connection closed"), and nothing is left."""
    spawned = tmp_path / "spawned"
    script = tmp_path / "silent.py"
    script.write_text(SILENT_SERVER, encoding="utf-8")
    ws = workspace(tmp_path / "ws", "s", [sys.executable, str(script), str(spawned)], {"t": "t"})
    config = ws / ".jp" / "config.toml"
    config.write_text(
        config.read_text().replace("[conversation", "startup_timeout_secs = 2\n[conversation", 1)
    )
    proc = run_cli("bridge", "run", "t", "-w", str(ws))
    ended = time.monotonic()  # CLOCK_MONOTONIC: the same clock the server read
    _one_line(proc.returncode, proc.stderr, "start timed out after 2s (startup_timeout_secs)")
    lived = ended - float(spawned.read_text())
    assert lived >= 2.0 - 0.05, lived  # it had been killed ~1 s early
    assert live_processes(str(spawned)) == []
