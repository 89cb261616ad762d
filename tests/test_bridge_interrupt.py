"""Ctrl-C ends a run at once, also while tools run on worker threads or an MCP call is in flight."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bridge_support import live_processes, python_on_path
from conftest import EXAMPLES, REPO

SERVER = EXAMPLES / "mcp_server" / "server.py"
HANG = "import time\nopen(__file__ + '.started', 'a').close()\ntime.sleep(120)\n"


def _interrupted(
    args: list[str],
    cwd: Path,
    running: Path,
    env: dict[str, str] | None = None,
    sig: signal.Signals = signal.SIGINT,
) -> float:
    """Run the CLI, send `sig` once `running` exists (its tool runs), and return how long
    it took from the signal to its exit, which must be 128 + sig (130 for Ctrl-C)."""
    # As from a terminal: a CI job started in the background has SIGINT ignored, which a
    # child inherits (and Python then never raises KeyboardInterrupt); a handler is not.
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jp_migrate", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        signal.signal(signal.SIGINT, ignored)
    deadline = time.monotonic() + 120  # a fresh install compiles every module first
    while not running.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # a second worker, if any, has started its tool too
    started = time.monotonic()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 128 + sig, err
    assert "Traceback" not in err
    return time.monotonic() - started


def _settled(marker: str) -> list[int]:
    deadline = time.monotonic() + 5
    while live_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return live_processes(marker)


ESCAPES = "import subprocess\nsubprocess.Popen(['setsid', 'sleep', '60'])\n"


@pytest.mark.parametrize(
    "prelude",
    ["", ESCAPES],
    ids=["tools running", "a tool's child left its group, holding its output"],
)
def test_ctrl_c_stops_verify_with_worker_threads(tmp_path: Path, prelude: str) -> None:
    hang = tmp_path / "hang-verify.py"
    hang.write_text(prelude + HANG)
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps({"arguments": {"n": i}}) + "\n" for i in range(4)))
    command = f"{sys.executable} {hang}"
    seconds = _interrupted(
        ["verify", "--before", command, "--after", command, "--cases", str(cases), "--jobs", "2",
         "-w", str(tmp_path)],
        tmp_path,
        Path(f"{hang}.started"),
    )  # fmt: skip
    assert seconds < 15
    assert _settled(str(hang)) == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_ctrl_c_or_sigterm_stops_check_while_a_case_runs(
    tmp_path: Path, sig: signal.Signals
) -> None:
    """SIGTERM (a CI job cancelled, `timeout`) as Ctrl-C: the tools killed, the copies removed.

    $TMPDIR inside the workspace, where the scratch copies (in which the tools run) go.
    """
    ws = tmp_path / "ws"
    scratch = ws / "tmp"
    scratch.mkdir(parents=True)
    (ws / ".jp").mkdir()
    started = tmp_path / "started"  # outside the workspace: the tool runs in a copy
    hang = ws / "hang-check.py"
    hang.write_text(f"import time\nopen({str(started)!r}, 'a').close()\ntime.sleep(120)\n")
    (ws / ".jp" / "config.toml").write_text(
        f'[conversation.tools.h]\nsource = "local"\ncommand = "{sys.executable} {hang}"\n'
    )
    (ws / "cases.jsonl").write_text('{"tool": "h", "arguments": {}}\n')
    (ws / ".jp-migrate.toml").write_text('cases = "cases.jsonl"\nstore = false\n')
    env = {**os.environ, "TMPDIR": str(scratch)}
    assert _interrupted(["check", str(ws)], ws, started, env, sig) < 15
    assert _settled("hang-check.py") == []
    assert list(scratch.iterdir()) == []  # the scratch copies of the workspace are gone


def _mcp_workspace(root: Path, arguments: list[str], tool: str) -> None:
    """A workspace whose tool `t` is `tool` on a server run as `python ARGUMENTS`."""
    (root / ".jp").mkdir()
    (root / ".jp" / "config.toml").write_text(
        f"[providers.mcp.s]\ncommand = {json.dumps(sys.executable)}\n"
        f"arguments = {json.dumps(arguments)}\n"
        f'[conversation.tools.t]\nsource = "mcp.s.{tool}"\n'
    )


def test_ctrl_c_stops_an_mcp_call_in_flight(tmp_path: Path) -> None:
    marker = str(tmp_path / "marker")
    _mcp_workspace(tmp_path, [str(SERVER), "--record", marker], "sleep")
    seconds = _interrupted(
        ["bridge", "run", "t", "-w", str(tmp_path), "--args", '{"seconds": 120}'],
        REPO,
        Path(marker),  # the server records each call as it starts
        env=python_on_path(),
    )
    assert seconds < 15  # not the 60 s of the call's timeout
    assert _settled(marker) == []


def test_ctrl_c_stops_an_mcp_server_still_starting(tmp_path: Path) -> None:
    slow = tmp_path / "slow-server.py"
    started = tmp_path / "starting"
    slow.write_text(
        "import runpy, sys, time\n"
        f"open({str(started)!r}, 'a').close()\n"
        "time.sleep(60)\n"
        f"sys.argv = [{str(SERVER)!r}]\n"
        f"runpy.run_path({str(SERVER)!r}, run_name='__main__')\n"
    )
    _mcp_workspace(tmp_path, [str(slow)], "greet")
    seconds = _interrupted(
        ["bridge", "run", "t", "-w", str(tmp_path), "--args", '{"name": "x"}'],
        REPO,
        started,
        env=python_on_path(),
    )
    assert seconds < 15
    assert _settled(str(slow)) == []
