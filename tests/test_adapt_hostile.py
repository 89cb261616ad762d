"""`adapt --mcp` and `adapt -- CMD` on a hostile wire: a client and a server in plain Python
(tests/hostile_wire_support.py, tests/data/adapt/hostile_server.py) that send what they should
not. Each test has a bounded wait (no hang), and checks there is no traceback, no process
of the test's left (by its environment marker), and, where a message is large, the
adapter's peak memory against the size limit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hostile_wire_support import (
    HOSTILE,
    PY,
    WAIT,
    Marked,
    MiB,
    Wire,
    adapt_command,
    measured,
    memory,
    needs_proc,
    printing_tool,
    text_of,
)

pytestmark = needs_proc

LIMIT = 8 * MiB  # the size limit these tests run the adapter with (the default is 64 MiB)
# Memory the adapter may take beyond its own start, as a multiple of the limit: a message
# read whole (the line, its parse, the converted result and its line) is a few copies.
MEMORY_FACTOR = 6


@pytest.fixture
def marked() -> Any:
    marker = Marked()
    yield marker
    marker.end()


def _session(marked: Marked, *args: str, version: str = "2025-11-25") -> Wire:
    wire = Wire(marked, "--max-message", f"{LIMIT}", *args, version=version)
    assert wire.handshake(version)["result"]["protocolVersion"] == version
    return wire


def _closed(wire: Wire) -> str:
    code, stderr = wire.close()
    assert code == 0, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    return stderr


def _big_line(size: int, key: Any = 7) -> bytes:
    """A tools/call request of about `size` bytes, its id first (as SDK clients write it)."""
    head = f'{{"jsonrpc":"2.0","id":{json.dumps(key)},"method":"tools/call","params":'
    body = '{"name":"echo","arguments":{"text":"'
    return (head + body).encode() + b"y" * size + b'"}}}\n'


# ── the size limit ──


def test_an_oversize_request_is_refused_and_the_session_goes_on(marked: Marked) -> None:
    wire = _session(marked)
    before = memory(wire.proc.pid, "VmRSS")
    started = time.monotonic()
    wire.send(_big_line(40 * MiB))  # five times the limit
    refused = wire.recv()
    assert refused["id"] == 7 and refused["error"]["code"] == -32600
    assert f"more than the adapter's limit of {LIMIT}" in refused["error"]["message"]
    wire.call(8, "echo", {"text": "still here"})
    assert text_of(wire.recv()) == "still here"
    took = time.monotonic() - started
    peak = wire.peak()
    _closed(wire)
    assert took < 30, took
    assert peak - before < MEMORY_FACTOR * LIMIT, (peak - before) / MiB


def test_an_oversize_line_with_no_newline_and_its_id_at_the_end(marked: Marked) -> None:
    """300 MB with no newline once took minutes and a gigabyte: it is read once, kept to
    the limit's edges, and answered by the id its last bytes carry."""
    wire = _session(marked)
    before = memory(wire.proc.pid, "VmRSS")
    chunk = b"z" * MiB
    wire.send(b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","x":"')
    for _ in range(100):
        wire.send(chunk)
    wire.send(b'"},"id":"last"}\n')
    refused = wire.recv()
    assert refused["id"] == "last" and refused["error"]["code"] == -32600
    peak = wire.peak()
    _closed(wire)
    assert peak - before < MEMORY_FACTOR * LIMIT, (peak - before) / MiB


def test_an_oversize_answer_from_the_server_is_an_error_result(marked: Marked) -> None:
    wire = _session(marked)
    before = memory(wire.proc.pid, "VmRSS")
    wire.call(1, "big", {"size": 20 * MiB, "outcome": True})
    answer = wire.recv()
    assert answer["id"] == 1 and answer["result"]["isError"] is True
    assert "its answer is" in text_of(answer) and f"limit of {LIMIT}" in text_of(answer)
    wire.call(2, "big", {"size": LIMIT // 2, "outcome": True})  # under the limit: converted
    assert text_of(wire.recv()) == "x" * (LIMIT // 2)
    peak = wire.peak()
    stderr = _closed(wire)
    assert "answered as an error" in stderr
    assert peak - before < MEMORY_FACTOR * LIMIT, (peak - before) / MiB


# ── every request answered exactly once ──


def test_malformed_meta_answers_are_invalid_params_naming_the_field(marked: Marked) -> None:
    wire = _session(marked)
    cases = {
        1: ({"computer.jp/tool": {"answers": ["yes"]}}, '"computer.jp/tool".answers'),
        2: ({"computer.jp/tool": "x"}, 'params._meta."computer.jp/tool"'),
        3: ([], "params._meta"),
    }
    for key, (meta, field) in cases.items():
        wire.call(key, "ask", _meta=meta)
        answer = wire.recv()
        assert answer["id"] == key and answer["error"]["code"] == -32602, answer
        assert field in answer["error"]["message"]
    assert wire.quiet() == []
    _closed(wire)


def test_a_duplicate_id_in_flight_is_refused(marked: Marked) -> None:
    """The second call reusing an id in flight is refused; the first gets its own converted
    answer, once."""
    wire = _session(marked)
    wire.call(5, "ask")  # the server asks: the call stays in flight (an elicitation round)
    ask = wire.recv()
    assert ask["method"] == "elicitation/create"
    wire.call(5, "echo", {"text": "twin"})
    refused = wire.recv()
    assert refused["id"] == 5 and refused["error"]["code"] == -32600
    assert "in use by a request in flight" in refused["error"]["message"]
    wire.send(json.dumps({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "action": "accept", "content": {"ok": True}}}).encode() + b"\n")  # fmt: skip
    done = wire.recv()
    assert done["id"] == 5 and text_of(done) == '{"ok": true}'
    assert wire.quiet() == []
    _closed(wire)


@pytest.mark.parametrize("version", ["2025-03-26", "2025-11-25"])
def test_a_batch_is_taken_or_refused_as_the_protocol_version_says(
    marked: Marked, version: str
) -> None:
    wire = _session(marked, version=version)
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "echo", "arguments": {"text": "one"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]  # fmt: skip
    wire.send(json.dumps(batch).encode() + b"\n")
    answers = {a["id"]: a for a in (wire.recv(), wire.recv())}
    if version == "2025-03-26":  # batches are part of it: each handled, the call converted
        assert text_of(answers[1]) == "one" and answers[2]["result"] == {}
    else:
        assert all(a["error"]["code"] == -32600 for a in answers.values())
        assert (
            "batches are not part of protocol version 2025-11-25" in answers[1]["error"]["message"]
        )
    assert wire.quiet() == []
    _closed(wire)


def test_a_batch_from_the_server_is_taken_message_by_message(marked: Marked) -> None:
    wire = _session(marked)
    wire.call(3, "batch")
    seen = [wire.recv(), wire.recv()]
    assert seen[0]["method"] == "notifications/message"
    assert seen[1]["id"] == 3 and text_of(seen[1]) == "batched"
    _closed(wire)


def test_answers_to_ids_nobody_asked_are_dropped_with_a_warning(marked: Marked) -> None:
    wire = _session(marked)
    wire.call(4, "forged")
    answer = wire.recv()
    assert answer["id"] == 4 and text_of(answer) == "real"
    assert wire.quiet() == []  # neither the forged answers nor the stray parse error
    wire.send(b'{"jsonrpc":"2.0","id":"jp-migrate-adapt:9","result":{"action":"accept"}}\n')
    wire.send(b'{"jsonrpc":"2.0","id":99,"result":{}}\n')
    wire.call(5, "echo", {"text": "after"})
    assert text_of(wire.recv()) == "after"
    stderr = _closed(wire)
    warnings = [line for line in stderr.splitlines() if "which no request in flight has" in line]
    assert len(warnings) == 3, stderr  # the server's two forged ids and its id null
    assert stderr.count("which nobody asked: dropped") == 2  # the client's two


def test_a_forged_request_state_is_refused(marked: Marked) -> None:
    """A 2026-07-28 round: answers are taken only with the state this adapter signed, for
    this call, and only for the question it asked."""
    wire = _session(marked, version="2026-07-28")
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    wire.call(1, "ask", {}, _meta=meta)
    first = wire.recv()["result"]
    assert first["resultType"] == "input_required"
    state = first["requestState"]
    accept = {"action": "accept", "content": {"ok": True}}
    forged = state[:-1] + ("1" if state.endswith("0") else "0")  # its signature altered
    other_args = {"name": "ask", "arguments": {"x": 1}, "requestState": state}
    cases = [
        ({"name": "ask", "arguments": {}, "requestState": forged}, "not one this adapter issued"),
        ({**other_args, "inputResponses": {"ok": accept}}, "issued for another call"),
        ({"name": "ask", "arguments": {}, "requestState": state,
          "inputResponses": {"other": accept}}, "no answer to the question 'ok'"),
    ]  # fmt: skip
    for key, (params, why) in enumerate(cases, start=2):
        wire.request(key, "tools/call", {**params, "_meta": meta})
        refused = wire.recv()
        assert refused["id"] == key and refused["error"]["code"] == -32602, refused
        assert why in refused["error"]["message"]
    params = {"name": "ask", "arguments": {}, "requestState": state, "_meta": meta,
              "inputResponses": {"ok": accept, "never_asked": accept}}  # fmt: skip
    wire.request(9, "tools/call", params)
    done = wire.recv()
    assert done["id"] == 9 and text_of(done) == '{"ok": true}'  # never_asked left out
    stderr = _closed(wire)
    assert "answers to questions it was not asked left out: 'never_asked'" in stderr


def test_a_server_dying_mid_line_sends_no_fragment(marked: Marked) -> None:
    wire = _session(marked)
    wire.call(6, "die_mid_line")
    answer = wire.recv()
    assert answer["id"] == 6 and answer["result"]["isError"] is True
    assert "the MCP server is gone" in text_of(answer)
    assert wire.quiet() == []
    _closed(wire)


def test_garbage_from_the_client_is_answered_not_passed_on(marked: Marked) -> None:
    wire = _session(marked)
    for line in (
        b"not json \xff\n",
        b"[]\n",
        b"42\n",
        b'{"jsonrpc":"2.0","id":[1],"method":"x"}\n',
    ):
        wire.send(line)
        answer = wire.recv()
        assert answer["id"] is None and answer["error"]["code"] in (-32700, -32600), answer
    wire.send(b'{"jsonrpc":"2.0","id":11,"method":"ping",}\n')  # a syntax error: its id shows
    assert wire.recv()["id"] == 11
    wire.call(12, "echo", {"text": "fine"})
    assert text_of(wire.recv()) == "fine"
    _closed(wire)


# ── nesting: JP's limit, both ways ──


def test_nesting_deeper_than_jp_reads_is_refused_both_ways(marked: Marked) -> None:
    wire = _session(marked)
    wire.call(1, "deep", {"depth": 127})  # as deep as JP reads: passed on
    assert wire.recv()["id"] == 1
    wire.call(2, "deep", {"depth": 128})
    answer = wire.recv()
    assert answer["id"] == 2 and answer["result"]["isError"] is True
    assert "nested too deeply (JP reads 127 levels" in text_of(answer)
    deep: Any = "x"
    for _ in range(200):
        deep = [deep]
    wire.call(3, "echo", {"text": deep})
    refused = wire.recv()
    assert refused["id"] == 3 and refused["error"]["code"] == -32600
    assert "nested too deeply" in refused["error"]["message"]
    _closed(wire)


# ── adapt -- CMD: bounded memory, however much the tool prints ──

BIG = 100 * MiB


def _baseline(marked: Marked, tmp_path: Path) -> int:
    """The local adapter's peak memory for a small output (its own start-up)."""
    _, peak = measured(adapt_command("--", *printing_tool(10)), marked, tmp_path)
    return peak


def _adapted(marked: Marked, tmp_path: Path, tool: list[str]) -> tuple[Any, int]:
    done, peak = measured(adapt_command("--max-message", "8MiB", "--", *tool), marked, tmp_path)
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
    return done, peak - _baseline(marked, tmp_path)


def test_a_raw_output_past_the_limit_is_streamed_as_its_text(
    marked: Marked, tmp_path: Path
) -> None:
    done, grown = _adapted(marked, tmp_path, printing_tool(BIG, start=b"log\n"))
    assert done.returncode == 0
    assert done.stdout == b'{"content":[{"type":"text","text":"log\\n' + b"a" * BIG + b'"}]}\n'
    assert grown < 1.5 * LIMIT, grown / MiB


def test_a_raw_output_past_the_limit_then_a_failure(marked: Marked, tmp_path: Path) -> None:
    """Too late for the legacy failure text: the output as it came, then the failure named."""
    done, grown = _adapted(marked, tmp_path, printing_tool(BIG, end=b"\xff", code=3))
    assert done.returncode == 3
    envelope = json.loads(done.stdout)
    output, notice = envelope["content"]
    assert output["text"] == "a" * BIG + "\ufffd"
    assert notice["text"] == (
        f"Tool 'python' printed output that is not valid UTF-8 (byte {BIG}: 0xff). Its output"
        f" ({BIG + 1} bytes, more than the limit of {LIMIT}) is above, as it came."
    )
    assert envelope["isError"] is True
    assert envelope["_meta"]["computer.jp/adapter"]["exit_code"] == 3
    assert grown < 1.5 * LIMIT, grown / MiB


def test_a_json_document_past_the_limit_is_an_error_naming_it(
    marked: Marked, tmp_path: Path
) -> None:
    tool = printing_tool(BIG, start=b'{"type": "success", "content": "', end=b'"}', code=4)
    done, grown = _adapted(marked, tmp_path, tool)
    assert done.returncode == 4
    envelope = json.loads(done.stdout)
    assert envelope["isError"] is True
    assert (
        f"more than the adapter reads as one (--max-message {LIMIT})"
        in (envelope["content"][0]["text"])
    )
    assert grown < 1.5 * LIMIT, grown / MiB


def test_stderr_past_the_limit_goes_on_and_only_its_end_is_kept(
    marked: Marked, tmp_path: Path
) -> None:
    done, grown = _adapted(marked, tmp_path, printing_tool(BIG, fd=2, end=b"\nthe end", code=1))
    assert done.returncode == 1
    assert done.stderr.startswith(b"a" * BIG + b"\nthe end")  # passed on as it came
    details = json.loads(done.stdout)["_meta"]["computer.jp/adapter"]
    assert details["stderr"].endswith("the end") and len(details["stderr"]) == 4096
    assert details["stderr_bytes"] == BIG + 8
    assert grown < 1.5 * LIMIT, grown / MiB


def test_an_outcome_under_the_limit_is_read_whole(marked: Marked, tmp_path: Path) -> None:
    size = LIMIT - 100
    tool = printing_tool(size, start=b'{"type": "success", "content": "', end=b'"}')
    done, grown = _adapted(marked, tmp_path, tool)
    assert done.returncode == 0
    assert done.stdout == b'{"content":[{"type":"text","text":"' + b"a" * size + b'"}]}\n'
    assert grown < MEMORY_FACTOR * LIMIT, grown / MiB


@pytest.mark.parametrize(
    ("depth", "kept"),
    [(127, True), (128, False), (900, False)],
)
def test_output_nested_deeper_than_jp_reads_is_raw_text(
    marked: Marked, tmp_path: Path, depth: int, kept: bool
) -> None:
    """An envelope (or an Outcome) nested deeper than JP's serde_json reads is no envelope to
    JP: it is raw text, as JP would show it, never passed through as an envelope."""
    inner = "[" * (depth - 3) + "]" * (depth - 3)  # the envelope's own levels: 3
    printed = '{"content": [{"type": "text", "text": "x", "n": ' + inner + "}]}"
    done = subprocess.run(
        adapt_command("--", PY, "-c", f"print({printed!r}, end='')"),
        capture_output=True, env=marked.env(), timeout=WAIT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    if kept:
        assert done.stdout.decode() == printed
    else:
        assert json.loads(done.stdout) == {"content": [{"type": "text", "text": printed}]}


# ── processes: nothing outlives the adapter ──


def _wait_for(path: Path) -> list[int]:
    deadline = time.monotonic() + WAIT
    while not (path.exists() and path.read_text().endswith("\n")):
        assert time.monotonic() < deadline, f"{path} was not written"
        time.sleep(0.05)
    return [int(pid) for pid in path.read_text().split()]


def test_what_a_tool_leaves_behind_is_ended_with_its_call(marked: Marked, tmp_path: Path) -> None:
    """A child in the tool's group, one that detached itself (its own session, its output
    elsewhere), and one of those holding the output open: none is left once adapt exits."""
    pids = tmp_path / "pids"
    script = (
        "sleep 300 & a=$!; setsid sleep 300 >/dev/null 2>&1 < /dev/null & b=$!; "
        f"setsid sleep 300 & c=$!; echo $a $b $c > {pids}; echo done"
    )
    done = subprocess.run(
        adapt_command("--", "sh", "-c", script),
        capture_output=True, env=marked.env(), timeout=WAIT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "done\n"
    assert len(_wait_for(pids)) == 3
    # (the fixture checks nothing with the marker is left)


@pytest.mark.parametrize("mcp", [False, True], ids=["adapt", "adapt --mcp"])
def test_a_sigkill_of_the_adapters_group_ends_the_tool_and_its_group(
    marked: Marked, tmp_path: Path, mcp: bool
) -> None:
    """A host killing the adapter's process group with SIGKILL: the tool (or server) dies
    with it (the parent-death signal), and what it started in its group too (the watcher)."""
    pids = tmp_path / "pids"
    if mcp:
        wire = Wire(marked)
        wire.handshake()
        wire.call(1, "children", {"pidfile": str(pids), "detach": False})
        assert text_of(wire.recv()) == "started"
        adapter = wire.proc
    else:
        script = f"sleep 300 & echo $$ $! > {pids}; wait"
        adapter = subprocess.Popen(
            adapt_command("--", "sh", "-c", script),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=marked.env(),
            start_new_session=True,
        )  # fmt: skip
        marked.started.append(adapter)
    assert len(_wait_for(pids)) == 2  # the tool (or server) and its child
    os.killpg(adapter.pid, signal.SIGKILL)
    adapter.wait()
    marked.assert_none_left()


def test_what_an_mcp_server_leaves_behind_is_ended_with_the_session(marked: Marked) -> None:
    pids = Path(f"/tmp/{os.getpid()}-{time.monotonic_ns()}")
    wire = Wire(marked)
    wire.handshake()
    wire.call(1, "children", {"pidfile": str(pids), "detach": True})
    assert text_of(wire.recv()) == "started"
    assert len(_wait_for(pids)) == 3
    pids.unlink()
    _closed(wire)


@pytest.mark.parametrize(("depth", "read"), [(127, True), (128, False)])
def test_the_bridge_reads_an_mcp_result_only_as_deep_as_jp_does(depth: int, read: bool) -> None:
    import anyio

    from jp_migrate.bridge.config import McpServer
    from jp_migrate.bridge.errors import BridgeError
    from jp_migrate.bridge.mcp_client import McpSession

    async def call() -> Any:
        server = McpServer("hostile", PY, (HOSTILE,))
        async with McpSession(server, Path.cwd(), timeout=WAIT) as session:
            return (await session.call("deep", {"depth": depth}, meta=None)).result

    if read:
        assert anyio.run(call) is not None
    else:
        with pytest.raises(BridgeError, match=r"nested too deeply \(JP reads 127 levels"):
            anyio.run(call)


# ── the pieces on their own ──


def test_a_line_over_the_limit_keeps_only_its_edges() -> None:
    from jp_migrate.adapt.pipes import EDGE_BYTES, Lines, Oversize

    lines = Lines(limit=10)
    assert lines.feed(b"0123456789\n") == [b"0123456789\n"]  # the limit itself: kept
    got = lines.feed(b'{"id":1,"x":"' + b"a" * 20_000)
    assert got == []
    got = lines.feed(b'b"}\nnext')
    assert isinstance(got[0], Oversize) and got[1:] == []
    assert got[0].size == 13 + 20_000 + 3
    assert got[0].head == (b'{"id":1,"x":"' + b"a" * 20_000)[:EDGE_BYTES]
    assert got[0].tail == (b"a" * 20_000 + b'b"}')[-EDGE_BYTES:]
    assert lines.rest() == b"next\n"
    assert lines.rest() is None


@pytest.mark.parametrize(
    ("head", "tail", "found"),
    [
        (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[1,{"b":"x', b"", 7),
        (b'{"method":"x","params":{"t":"aaa', b'aaa"}, "id" : "k\\"1"}\n', 'k"1'),
        (b'{"result":{"content":[]},"id":3}', b"", 3),
        (b'{"params":{"id":5,"t":"aa', b'aa"}}', None),  # an id inside the params: not its
        (b'{"t":"aa', b'a\\",\\"id\\":5}"}', None),  # one inside a string
        (b'garbage {"id":1}', b"", None),
    ],
)
def test_a_messages_id_is_read_from_its_edges(head: bytes, tail: bytes, found: Any) -> None:
    from jp_migrate.adapt.wire import members

    assert members(head, tail).get("id") == found


@pytest.mark.parametrize(
    ("args", "tool", "rule"),
    [
        (
            ["--max-message", "1MiB"],
            printing_tool(3 * MiB, start="é\n".encode()),
            "adapt-raw-output",
        ),
        (["--max-message", "1MiB"], printing_tool(3 * MiB, code=2), "adapt-raw-over-limit-failure"),
        ([], printing_tool(3000), "adapt-raw-output"),
    ],
    ids=["streamed", "streamed, then a failure", "written from its bytes"],
)
def test_a_streamed_envelopes_provenance_is_that_of_what_was_printed(
    marked: Marked, args: list[str], tool: list[str], rule: str
) -> None:
    import hashlib

    done = subprocess.run(
        adapt_command("--provenance", *args, "--", *tool),
        capture_output=True, env=marked.env(), timeout=WAIT, check=False,
    )  # fmt: skip
    envelope = json.loads(done.stdout)
    record = envelope["_meta"].pop("computer.jp/provenance")
    if not envelope["_meta"]:
        del envelope["_meta"]
    printed = json.dumps(envelope, ensure_ascii=False, separators=(",", ":")) + "\n"
    stdout = subprocess.run(tool, capture_output=True, timeout=WAIT, check=False).stdout
    assert record["rules"] == [rule]
    assert record["output"]["sha256"] == hashlib.sha256(printed.encode()).hexdigest()
    assert record["input"]["sha256"] == hashlib.sha256(stdout).hexdigest()


def test_an_oversize_message_whose_id_is_out_of_sight_is_answered_by_null() -> None:
    """Neither in its first nor its last bytes: the client must still hear something."""
    from jp_migrate.adapt.pipes import Oversize
    from jp_migrate.adapt.relay import Relay

    to_client: list[bytes] = []
    relay = Relay("srv", to_client.append, lambda line: None, lambda: "", limit=100)
    relay.from_client(Oversize(b'{"method":"tools/call","params":{"t":"aaa', b'aaa"}}', 500))
    relay.from_client(Oversize(b'{"jsonrpc":"2.0","id":3,"result":{"x":"', b'"}}', 500))
    (answer,) = (json.loads(line) for line in to_client)  # an answer nobody asked: dropped
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert "is 500 bytes, more than the adapter's limit of 100" in answer["error"]["message"]


def test_what_comes_to_the_adapter_and_ends_is_reaped_as_it_goes(marked: Marked) -> None:
    """As a subreaper the adapter inherits the orphans a tool leaves; those that end on
    their own are reaped while the tool still runs (not kept as zombies until the end)."""
    script = str(Path(__file__).parent / "data" / "adapt" / "orphans.py")
    done = subprocess.run(
        adapt_command("--", PY, script, "20"),
        capture_output=True, env=marked.env(), timeout=WAIT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "zombies left: 0\n"


def test_what_comes_to_the_mcp_adapter_and_ends_is_reaped_in_the_session(marked: Marked) -> None:
    wire = Wire(marked)
    wire.handshake()
    wire.call(1, "orphans", {"count": 20})
    assert text_of(wire.recv()) == "zombies left: 0"
    _closed(wire)
