"""`jp-migrate adapt -- CMD`: SPEC §2's mapping, the envelope policy (SPEC §4), bad input."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jp_migrate.contract.jsontext import load_json
from jp_migrate.convert.compare import compare
from jp_migrate.convert.host import ToolRun, blocks_outcome, failure_text, legacy_outcome

PY = sys.executable


def adapt(
    *args: str,
    input: bytes | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [PY, "-m", "jp_migrate", "adapt", *args],
        input=input,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


def printing(text: str, code: int = 0, err: str = "") -> list[str]:
    """A tool (a Python one-liner) that prints `text` as is, `err` on stderr, and exits `code`."""
    program = (
        "import sys; sys.stdout.write(sys.argv[1]); sys.stderr.write(sys.argv[2]);"
        " sys.exit(int(sys.argv[3]))"
    )
    return [PY, "-c", program, text, err, str(code)]


def dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


ERROR_T = {"type": "error", "message": "db down", "trace": ["refused", "é"], "transient": True}
ERROR_P = {"type": "error", "message": "no such file", "trace": [], "transient": False}
ASK = {
    "type": "needs_input",
    "question": {
        "id": "mode",
        "text": "How?",
        "pre_amble": "first lines",
        "answer_type": {"Select": {"options": ["trash", "delete"]}},
        "default": "trash",
    },
}

# stdout, exit status → the envelope printed (SPEC §2's table), one line of compact JSON.
MAPPING = {
    "success": (
        dumps({"type": "success", "content": "Zoë 🌱\n"}),
        0,
        {"content": [{"type": "text", "text": "Zoë 🌱\n"}]},
    ),
    "success as serde's sequence": (
        '["success", "done"]',
        0,
        {"content": [{"type": "text", "text": "done"}]},
    ),
    "transient error": (
        dumps(ERROR_T),
        0,
        {
            "content": [{"type": "text", "text": "db down"}],
            "isError": True,
            "_meta": {"computer.jp/error": {"transient": True, "trace": ["refused", "é"]}},
        },
    ),
    "permanent error, exit status ignored as JP does": (
        dumps(ERROR_P),
        4,
        {
            "content": [{"type": "text", "text": "no such file"}],
            "isError": True,
            "_meta": {"computer.jp/error": {"transient": False, "trace": []}},
        },
    ),
    "question with a pre-amble": (
        dumps(ASK),
        0,
        {
            "content": [
                {"type": "text", "text": "first lines"},
                {
                    "type": "question",
                    "question": {
                        "id": "mode",
                        "text": "How?",
                        "schema": {"type": "string", "enum": ["trash", "delete"]},
                        "default": "trash",
                    },
                },
            ]
        },
    ),
    "raw text": ("plain {not json", 0, {"content": [{"type": "text", "text": "plain {not json"}]}),
    "an object missing a field is raw": (
        '{"type": "error", "message": "m"}',
        0,
        {"content": [{"type": "text", "text": '{"type": "error", "message": "m"}'}]},
    ),
}


@pytest.mark.parametrize("case", sorted(MAPPING))
def test_mapping(case: str) -> None:
    stdout, code, expected = MAPPING[case]
    done = adapt("--", *printing(stdout, code))
    assert done.returncode == code
    assert (
        done.stdout.decode()
        == json.dumps(expected, ensure_ascii=False, separators=(",", ":")) + "\n"
    )
    assert done.stderr == b""


def test_needs_input_boolean_without_default_has_no_default() -> None:
    ask = {"type": "needs_input", "question": {"id": "ok", "text": "Go?", "answer_type": "Boolean"}}
    done = adapt("--", *printing(dumps(ask)))
    assert load_json(done.stdout) == {
        "content": [
            {
                "type": "question",
                "question": {"id": "ok", "text": "Go?", "schema": {"type": "boolean"}},
            }
        ]
    }


@pytest.mark.parametrize(
    "envelope",
    [
        '{"content": [ {"type":"text","text":"x"} ], "isError": false}\n',
        '{"content":[],"_meta":{"computer.jp/status":"running","x":1.50}}',
        '{\n  "content": [{"type": "bogus"}]\n}\n',  # malformed blocks: still the new format
    ],
)
def test_an_envelope_passes_through_byte_for_byte(envelope: str) -> None:
    for flags in ((), ("--provenance",)):
        done = adapt(*flags, "--", *printing(envelope))
        assert done.stdout == envelope.encode()
        assert done.returncode == 0


def test_raw_failure_carries_the_legacy_failure_text() -> None:
    done = adapt("--name", "cargo_check", "--", *printing("half out", 3, "boom\n"))
    assert done.returncode == 3
    assert done.stderr == b"boom\n"  # the tool's stderr, passed on
    text = failure_text(ToolRun("cargo_check", "half out", "boom\n", 3))
    assert (
        text
        == '{"message":"Tool \'cargo_check\' execution failed.","stderr":"boom\\n","stdout":"half out"}'
    )
    assert load_json(done.stdout) == {
        "content": [{"type": "text", "text": text}],
        "isError": True,
        "_meta": {
            "computer.jp/error": {"transient": False, "trace": []},
            "computer.jp/adapter": {"exit_code": 3, "stderr": "boom\n"},
        },
    }


def test_the_name_defaults_to_the_programs_file_name(tmp_path: Path) -> None:
    script = tmp_path / "my_tool.sh"
    script.write_text("#!/bin/sh\necho nope\nexit 1\n")
    script.chmod(0o755)
    done = adapt("--", str(script))
    assert "Tool 'my_tool.sh' execution failed." in load_json(done.stdout)["content"][0]["text"]


@pytest.mark.parametrize("case", sorted(MAPPING))
def test_the_new_host_reads_what_the_legacy_host_read(case: str) -> None:
    """SPEC §5: the adapted output, read by the RFD 058 host, against the original read by
    the legacy host: a match or a named expected difference, never a mismatch."""
    stdout, code, _ = MAPPING[case]
    done = adapt("--name", "t", "--", *printing(stdout, code))
    control = legacy_outcome(ToolRun("t", stdout, "", code)).outcome
    candidate = blocks_outcome(ToolRun("t", done.stdout.decode(), "", done.returncode)).outcome
    assert compare(control, candidate).verdict in ("match", "expected")


def test_stdin_environment_working_directory_and_status_pass_through(tmp_path: Path) -> None:
    program = (
        "import os, sys, json; print(json.dumps({'type': 'success', 'content':"
        " sys.stdin.read() + '|' + os.environ['JP_X'] + '|' + os.getcwd()})); sys.exit(5)"
    )
    done = adapt(
        "--", PY, "-c", program, input=b"from stdin", cwd=tmp_path, env={**os.environ, "JP_X": "x!"}
    )
    assert done.returncode == 5
    text = load_json(done.stdout)["content"][0]["text"]
    assert text == f"from stdin|x!|{tmp_path.resolve()}"


def test_output_is_deterministic() -> None:
    runs = {adapt("--provenance", "--", *printing(dumps(ERROR_T))).stdout for _ in range(3)}
    assert len(runs) == 1


def test_provenance_only_on_request() -> None:
    stdout = dumps(ERROR_T)
    plain = adapt("--", *printing(stdout)).stdout
    assert "provenance" not in plain.decode()
    done = adapt("--provenance", "--", *printing(stdout))
    document = load_json(done.stdout)
    record = document["_meta"].pop("computer.jp/provenance")
    assert record["adapter"]["name"] == "jp-migrate adapt"
    assert record["input"]["sha256"] == hashlib.sha256(stdout.encode()).hexdigest()
    assert record["output"]["sha256"] == hashlib.sha256(plain).hexdigest()
    assert record["rules"] == ["adapt-outcome-error"]
    assert document == load_json(plain)  # nothing else added or changed


def test_the_click_command_agrees_with_the_fast_path() -> None:
    """`cli.main` (the click command) and the console script's fast path print the same."""
    argv = ["adapt", "--name", "t", "--", *printing("out", 2, "e")]
    code = f"import sys; from jp_migrate.cli import main; main({argv!r})"
    slow = subprocess.run([PY, "-c", code], capture_output=True, timeout=60, check=False)
    fast = adapt(*argv[1:])
    assert (slow.returncode, slow.stdout, slow.stderr) == (
        fast.returncode,
        fast.stdout,
        fast.stderr,
    )


def test_the_local_path_imports_nothing_heavy() -> None:
    """No pydantic, rich, libcst, MCP SDK or click in front of a tool (the overhead)."""
    probe = (
        "import atexit, sys\n"
        "heavy = ('pydantic', 'rich', 'libcst', 'mcp', 'click', 'subprocess', 'anyio')\n"
        "atexit.register(lambda: sys.stderr.write(repr(sorted(m for m in sys.modules"
        " if m.split('.')[0] in heavy))))\n"
        f"sys.argv = ['jp-migrate', 'adapt', '--', {PY!r}, '-c', 'print(1)']\n"
        "from jp_migrate.entry import main\n"
        "main()\n"
    )
    for stdout in (
        '{"type": "success", "content": "x"}',
        "raw",
        '{"type": "error", "message": "m", "trace": [], "transient": false}',
    ):
        probe_for = probe.replace("'print(1)'", repr(f"print({stdout!r})"))
        done = subprocess.run([PY, "-c", probe_for], capture_output=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        assert done.stderr.decode().endswith("[]"), done.stderr


# ── bad input: one line on stderr, an isError envelope, never a traceback ──


def _one_error_line(stderr: bytes) -> str:
    lines = stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert b"Traceback" not in stderr
    return lines[0]


def test_a_command_that_cannot_start(tmp_path: Path) -> None:
    missing = adapt("--name", "t", "--", str(tmp_path / "nope"))
    assert missing.returncode == 127
    assert "No such file" in _one_error_line(missing.stderr)
    envelope = load_json(missing.stdout)
    assert envelope["isError"] is True
    assert envelope["content"][0]["text"].startswith("Tool 't' could not be started")
    script = tmp_path / "not-executable"
    script.write_text("echo hi\n")
    denied = adapt("--", str(script))
    assert denied.returncode == 126
    assert "Permission denied" in _one_error_line(denied.stderr)
    assert load_json(denied.stdout)["isError"] is True


def test_output_that_is_not_utf8() -> None:
    program = "import sys; sys.stdout.buffer.write(b'ok \\xff'); sys.exit(0)"
    done = adapt("--name", "t", "--", PY, "-c", program)
    assert "not valid UTF-8" in _one_error_line(done.stderr)
    envelope = load_json(done.stdout)
    assert envelope["isError"] is True
    assert envelope["content"][0]["text"] == (
        "Tool 't' printed output that is not valid UTF-8 (byte 3: 0xff)."
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes (only its parent can reap it).
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def _hanging_tool(tmp_path: Path, *, trap: bool) -> list[str]:
    """A shell tool that starts a background sleeper (its pid in a file) and hangs; with
    `trap`, it notes a SIGTERM in a file before it exits."""
    pids = tmp_path / "pids"
    note = tmp_path / "got-term"
    body = f"sleep 300 & echo $! >> {pids}; echo $$ >> {pids}; "
    if trap:
        body += f"trap 'echo term > {note}; exit 9' TERM; "
    body += "while :; do sleep 0.05; done"
    return ["sh", "-c", body]


def _pids(tmp_path: Path, count: int = 2, seconds: float = 20.0) -> list[int]:
    deadline = time.monotonic() + seconds
    path = tmp_path / "pids"
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_text().split()) >= count:
            return [int(p) for p in path.read_text().split()]
        time.sleep(0.05)
    raise AssertionError("the tool did not start")


def test_a_hanging_tool_times_out_and_leaves_no_orphans(tmp_path: Path) -> None:
    done = adapt("--name", "t", "--timeout", "1", "--", *_hanging_tool(tmp_path, trap=False))
    assert done.returncode == 137
    assert "timed out" in _one_error_line(done.stderr)
    assert load_json(done.stdout)["content"][0]["text"] == "Tool 't' timed out after 1s."
    assert all(_wait_gone(pid) for pid in _pids(tmp_path))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_signals_reach_the_tool_and_nothing_is_left(tmp_path: Path, signum: int) -> None:
    proc = subprocess.Popen(
        [PY, "-m", "jp_migrate", "adapt", "--name", "t", "--", *_hanging_tool(tmp_path, trap=True)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        pids = _pids(tmp_path)
        proc.send_signal(signum)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert all(_wait_gone(pid) for pid in pids)
    assert b"Traceback" not in stderr
    envelope = load_json(stdout)
    assert envelope["isError"] is True
    if signum == signal.SIGTERM:  # the trap ran: the tool itself saw the signal
        assert (tmp_path / "got-term").read_text() == "term\n"
        assert proc.returncode == 9
    else:
        assert proc.returncode == 128 + signum


def test_a_tool_that_ignores_the_signal_is_killed_after_a_grace(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    body = f"trap '' TERM; sleep 300 & echo $! >> {pids}; echo $$ >> {pids}; while :; do sleep 0.05; done"
    proc = subprocess.Popen(
        [PY, "-m", "jp_migrate", "adapt", "--", "sh", "-c", body],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        started = _pids(tmp_path)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 137
    assert all(_wait_gone(pid) for pid in started)
    assert "ended by SIGKILL" in _one_error_line(stderr)
    assert load_json(stdout)["isError"] is True


def test_a_raw_failure_is_the_named_expected_difference() -> None:
    """The legacy host stored the failure text; the adapter's error block holds exactly it."""
    done = adapt("--name", "t", "--", *printing("out", 2, "err"))
    control = legacy_outcome(ToolRun("t", "out", "err", 2)).outcome
    candidate = blocks_outcome(ToolRun("t", done.stdout.decode(), "", 2)).outcome
    comparison = compare(control, candidate)
    assert (comparison.verdict, comparison.differences) == (
        "expected",
        ("failure-text-in-content",),
    )
    # Another text in the block is a mismatch, not this difference.
    other = blocks_outcome(
        ToolRun("t", done.stdout.decode().replace("execution failed", "failed"), "", 2)
    ).outcome
    assert compare(control, other).verdict == "mismatch"


def test_an_envelope_that_cannot_be_written_is_one_line() -> None:
    """stdout on a full device: one line and exit 2, not a traceback."""
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [PY, "-m", "jp_migrate", "adapt", "--", *printing("x" * 100)],
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2
    assert _one_error_line(done.stderr).startswith("error: cannot write the envelope")


def test_a_tool_that_closes_its_output_before_it_exits_is_waited_for() -> None:
    """As a host waits for both: the output's end is not the tool's end (its status counts)."""
    program = (
        'import os, sys, time; print(\'{"type": "success", "content": "x"}\');'
        " sys.stdout.flush(); os.close(1); os.close(2); time.sleep(0.5); os._exit(4)"
    )
    done = adapt("--", PY, "-c", program)
    assert done.returncode == 4
    assert load_json(done.stdout) == {"content": [{"type": "text", "text": "x"}]}


def test_a_tool_that_closes_its_output_and_hangs_still_times_out() -> None:
    """Once the output has closed the tool is looked at less and less often, never so
    seldom that the timeout is missed."""
    program = "import os, time; os.close(1); os.close(2); time.sleep(300)"
    done = adapt("--name", "t", "--timeout", "1", "--", PY, "-c", program)
    assert done.returncode == 137
    assert "timed out" in _one_error_line(done.stderr)
    assert load_json(done.stdout)["content"][0]["text"] == "Tool 't' timed out after 1s."
