"""`jp-migrate bridge run` end to end: real processes, through the CLI."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest
from bridge_support import write_tools
from conftest import run_cli


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tools(tmp_path_factory.mktemp("ws"))


def run_json(ws: Path, tool: str, *extra: str) -> tuple[int, dict, str]:
    proc = run_cli("bridge", "run", tool, "--workspace", str(ws), "--json", *extra)
    return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else {}), proc.stderr


@pytest.mark.parametrize(
    ("tool", "action", "protocol", "text", "is_error", "code"),
    [
        ("legacy", "greet", "outcome", "Hello, you!", False, 0),
        ("legacy", "flaky", "outcome", '{"message":"try again","trace":["timeout"]}', True, 1),
        ("legacy", "raw", "raw", "plain text", False, 0),
        ("migrated", "greet", "blocks", "Hello, you!", False, 0),
        ("migrated", "fail", "blocks", "no such file", True, 1),
    ],
)
def test_runs_a_configured_tool(
    ws: Path, tool: str, action: str, protocol: str, text: str, is_error: bool, code: int
) -> None:
    rc, outcome, _ = run_json(ws, tool, "--args", json.dumps({"action": action}))
    assert (rc, outcome["protocol"], outcome["text"], outcome["is_error"]) == (
        code,
        protocol,
        text,
        is_error,
    )


def test_template_context_reaches_the_tool(ws: Path) -> None:
    rc, outcome, _ = run_json(
        ws, "legacy", "--args", '{"action": "context"}', "--options", '{"verbose": true}'
    )
    assert rc == 0
    assert json.loads(outcome["text"]) == {
        "arguments": {"action": "context"},
        "answers": {},
        "options": {"verbose": True},
    }


def test_protocol_flag_forces_a_host(ws: Path) -> None:
    _, outcome, _ = run_json(ws, "legacy", "--args", '{"action": "greet"}', "--protocol", "blocks")
    assert outcome["protocol"] == "raw"


def test_ad_hoc_command_runs_in_the_workspace(ws: Path) -> None:
    proc = run_cli("bridge", "run", "--command", "pwd", "--name", "where", "-w", str(ws), "--json")
    assert json.loads(proc.stdout)["text"].strip() == str(ws.resolve())


@pytest.mark.parametrize("tool", ["legacy", "migrated"])
def test_questions_answered_from_a_file(ws: Path, tmp_path: Path, tool: str) -> None:
    answers = tmp_path / "answers.json"
    answers.write_text('{"confirm": false}', encoding="utf-8")
    rc, outcome, _ = run_json(
        ws, tool, "--args", '{"action": "confirm"}', "--answers", f"@{answers}"
    )
    assert (rc, outcome["status"], outcome["text"]) == (0, "completed", "skipped")


def test_a_default_answers_a_question_non_interactively(ws: Path) -> None:
    _, outcome, _ = run_json(ws, "migrated", "--args", '{"action": "pick"}')
    assert outcome["text"] == "picked green"


def test_a_missing_answer_is_a_clear_error(ws: Path) -> None:
    rc, _, err = run_json(ws, "legacy", "--args", '{"action": "confirm"}')
    assert rc == 2
    assert err.strip().splitlines() == [
        (
            "error: question 'confirm' (Apply?) has no answer and no default; pass it with "
            "--answers '{\"confirm\": …}' or run on a terminal"
        )
    ]


def test_readable_panel_without_json(ws: Path) -> None:
    proc = run_cli("bridge", "run", "migrated", "-w", str(ws), "--args", '{"action": "flaky"}')
    assert proc.returncode == 1
    assert "migrated · blocks · error" in proc.stdout and "try again" in proc.stdout
    assert "trace: timeout" in proc.stdout


# ── bad input: one line, non-zero exit, no traceback, no orphan ───────────────


def _one_line_error(proc: object, *needles: str) -> None:
    assert proc.returncode == 2  # type: ignore[attr-defined]
    err = proc.stderr.strip()  # type: ignore[attr-defined]
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "Traceback" not in err
    for needle in needles:
        assert needle in err


def test_missing_tool(ws: Path) -> None:
    _one_line_error(
        run_cli("bridge", "run", "nope", "-w", str(ws)), "no tool named 'nope'", "known: "
    )


def test_template_error(ws: Path) -> None:
    _one_line_error(
        run_cli("bridge", "run", "--command", "echo {{ tool.x.y.z }}"), "template error"
    )


def test_command_that_cannot_be_spawned(ws: Path) -> None:
    _one_line_error(
        run_cli("bridge", "run", "--command", "/no/such/binary {{tool}}", "-w", str(ws)),
        "cannot run '/no/such/binary'",
    )


def test_non_utf8_stdout(ws: Path) -> None:
    script = "import sys; sys.stdout.buffer.write(b'ok \\xff')"
    _one_line_error(
        run_cli("bridge", "run", "--command", f'{sys.executable} -c "{script}"', "-w", str(ws)),
        "stdout is not valid UTF-8 (byte 3",
    )


def test_bad_json_option(ws: Path) -> None:
    _one_line_error(
        run_cli("bridge", "run", "legacy", "-w", str(ws), "--args", "[1"),
        "--args is not valid JSON",
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes; only a running orphan counts.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_a_hanging_tool_is_killed_with_its_process_group(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = (
        "import os, subprocess, sys, time;"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
        f"open({str(pids)!r}, 'w').write(f'{{os.getpid()}} {{child.pid}}');"
        "time.sleep(60)"
    )
    started = time.monotonic()
    proc = run_cli(
        "bridge",
        "run",
        "--command",
        f'{sys.executable} -c "{script}"',
        "-w",
        str(tmp_path),
        "--timeout",
        "1",
    )
    assert time.monotonic() - started < 20
    _one_line_error(proc, "timed out after 1s; killed its process group")
    parent, child = (int(p) for p in pids.read_text().split())
    deadline = time.monotonic() + 5
    while (_alive(parent) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(parent) and not _alive(child)
    for pid in (parent, child):  # belt and braces: never leave a sleeper behind
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_timeout_holds_when_a_child_left_the_process_group(tmp_path: Path) -> None:
    """A child in its own session survives the group kill and keeps stdout open: not waited for."""
    started = time.monotonic()
    proc = run_cli(
        "bridge",
        "run",
        "--command",
        "sh -c 'setsid sleep 30 & sleep 60'",
        "-w",
        str(tmp_path),
        "--timeout",
        "1",
    )
    assert time.monotonic() - started < 15
    _one_line_error(proc, "timed out after 1s; killed its process group")


def test_a_timeout_says_when_the_tool_exited_but_its_child_holds_the_output(
    tmp_path: Path,
) -> None:
    """A daemon keeping stdout open: the wait is for it, not the tool, and the error says so."""
    proc = run_cli(
        "bridge", "run", "--command", "sh -c 'sleep 30 & echo hi'", "-w", str(tmp_path),
        "--timeout", "1",
    )  # fmt: skip
    _one_line_error(
        proc,
        "timed out after 1s: it exited (code 0), but a process it started kept its output open; "
        "killed its process group",
    )


def _printing(tmp_path: Path, text: str) -> str:
    """A `--command` that prints `text` as the tool's stdout."""
    out = tmp_path / "out.txt"
    out.write_text(text, encoding="utf-8")
    return f'{sys.executable} -c "import sys; sys.stdout.write(open({str(out)!r}).read())"'


def test_a_malformed_meta_does_not_turn_an_error_into_a_success(tmp_path: Path) -> None:
    envelope = {
        "content": [{"type": "text", "text": "disk full"}],
        "isError": True,
        "_meta": {"computer.jp/error": {"transient": "yes"}, "example.com/kept": 1},
    }
    proc = run_cli(
        "bridge", "run", "--command", _printing(tmp_path, json.dumps(envelope)),
        "-w", str(tmp_path), "--json",
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    outcome = json.loads(proc.stdout)
    assert outcome["is_error"] is True and outcome["text"] == "disk full"
    (warning,) = proc.stderr.strip().splitlines()
    assert "_meta.computer.jp/error.transient" in warning


def test_the_panel_wraps_long_output_instead_of_cutting_it(tmp_path: Path) -> None:
    text = " ".join(f"word{i}" for i in range(60)) + " END"
    proc = run_cli("bridge", "run", "--command", _printing(tmp_path, text), "-w", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "END" in proc.stdout and "word59" in proc.stdout


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ('{"a": NaN}', "NaN is not a JSON value"),
        ('{"a": ' + "[" * 100_000, "invalid JSON"),
    ],
    ids=["NaN", "nested too deeply"],
)
def test_args_are_json_as_jp_reads_it(tmp_path: Path, args: str, reason: str) -> None:
    (tmp_path / "args.json").write_text(args, encoding="utf-8")
    proc = run_cli(
        "bridge", "run", "--command", "echo {{tool.arguments}}", "-w", str(tmp_path),
        "--args", f"@{tmp_path / 'args.json'}",
    )  # fmt: skip
    _one_line_error(proc, "--args is not valid JSON", reason)


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "soon"])
def test_a_timeout_that_is_no_finite_number_of_seconds_is_a_usage_error(value: str) -> None:
    """`nan` passed click's FloatRange and the wait then spun forever."""
    proc = run_cli("bridge", "run", "--command", "echo hi", "--timeout", value)
    assert proc.returncode == 2
    assert "Invalid value for '--timeout'" in proc.stderr


def test_the_panel_shows_control_characters_instead_of_sending_them(tmp_path: Path) -> None:
    """A tool's output must not drive the terminal (window title, colours): shown as \\xNN."""
    command = _printing(tmp_path, "before\x1b]0;PWNED\x07\x1b[31mred after\n")
    proc = run_cli("bridge", "run", "--command", command, "-w", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout and "\x07" not in proc.stdout
    assert "before\\x1b]0;PWNED\\x07\\x1b[31mred after" in proc.stdout
