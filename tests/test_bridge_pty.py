"""Questions asked on a real (pseudo-)terminal: yes/no for boolean, a select for an enum."""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest
from bridge_support import python_on_path, write_tools
from conftest import EXAMPLES, REPO

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a POSIX pseudo-terminal")


class Terminal:
    """`jp-migrate ARGS` with a pseudo-terminal as stdin, stdout and stderr."""

    def __init__(self, *args: str, term: str = "dumb") -> None:
        self.master, slave = os.openpty()
        # A wide terminal, so a long prompt is not folded across lines.
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        env = {**python_on_path(), "NO_COLOR": "1", "TERM": term, "COLUMNS": "200"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "jp_migrate", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=REPO,
            env=env,
            close_fds=True,
        )
        os.close(slave)
        self.seen = ""

    def expect(self, needle: str, timeout: float = 30, after: int = 0) -> None:
        """Wait until `needle` shows (in what the terminal showed from offset `after` on)."""
        deadline = time.monotonic() + timeout
        while needle not in self.seen[after:]:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"never saw {needle!r}; got {self.seen!r}")
            ready, _, _ = select.select([self.master], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"terminal closed before {needle!r}; got {self.seen!r}")
                self.seen += chunk.decode("utf-8", "replace")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def finish(self, timeout: float = 30) -> int:
        try:
            self.expect("\x00never", timeout=timeout)
        except AssertionError:
            pass
        code = self.proc.wait(timeout=timeout)
        os.close(self.master)
        return code


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tools(tmp_path_factory.mktemp("ws"))


def _outcome(seen: str) -> dict:
    start = seen.index("{\r\n") if "{\r\n" in seen else seen.index("{\n")
    return json.loads(seen[start:].replace("\r\n", "\n"))


def test_boolean_question_asked_yes_no(ws: Path) -> None:
    term = Terminal(
        "bridge", "run", "legacy", "-w", str(ws), "--args", '{"action": "confirm"}', "--json"
    )
    term.expect("Apply? [y/n]")
    term.send("n")
    assert term.finish(timeout=10) == 0
    assert _outcome(term.seen)["text"] == "skipped"


def test_enum_question_is_a_select(ws: Path) -> None:
    term = Terminal(
        "bridge", "run", "migrated", "-w", str(ws), "--args", '{"action": "pick"}', "--json"
    )
    term.expect("Colour?")
    term.expect("1. red")
    term.expect("Choose")
    term.send("1")
    assert term.finish(timeout=10) == 0
    assert _outcome(term.seen)["text"] == "picked red"


def test_string_question_is_a_text_prompt(ws: Path) -> None:
    term = Terminal(
        "bridge", "run", "legacy", "-w", str(ws), "--args", '{"action": "ask_name"}', "--json"
    )
    term.expect("Your name?")
    term.send("Zoë")
    assert term.finish(timeout=10) == 0
    assert _outcome(term.seen)["text"] == "hi Zoë"


def test_no_input_flag_never_prompts(ws: Path) -> None:
    term = Terminal(
        "bridge", "run", "legacy", "-w", str(ws), "--args", '{"action": "confirm"}', "--no-input"
    )
    assert term.finish(timeout=10) == 2
    assert "question 'confirm' (Apply?) has no answer" in term.seen


def test_mcp_input_required_elicitation_asked_on_the_terminal() -> None:
    term = Terminal(
        "bridge",
        "run",
        "mcp_delete_file",
        "-w",
        str(EXAMPLES / "tools"),
        "--args",
        '{"path": "a.txt"}',
        "--json",
    )
    term.expect("Delete a.txt? [y/n]", timeout=60)
    term.send("y")
    assert term.finish(timeout=30) == 0
    outcome = _outcome(term.seen)
    assert (outcome["protocol"], outcome["text"]) == ("mcp", "deleted a.txt")


@pytest.mark.parametrize(
    ("wants", "sent"), [("n", "{'name': 'Ada'}"), ("y", "{'name': 'Ada', 'nick': 'A'}")]
)
def test_an_optional_form_field_may_be_left_out_at_the_terminal(
    tmp_path: Path, wants: str, sent: str
) -> None:
    """A field the MCP form does not require: the terminal first asks whether to answer it;
    "no" leaves it out of the form. It had to be answered."""
    from test_bridge_mcp import OPTIONAL_FIELD_SERVER, _workspace

    server = tmp_path / "optional_server.py"
    server.write_text(OPTIONAL_FIELD_SERVER, encoding="utf-8")
    ws = _workspace(tmp_path, sys.executable, [str(server)], "go")
    term = Terminal("bridge", "run", "t", "-w", str(ws), "--json")
    term.expect("Go ahead?", timeout=60)
    term.send("Ada")
    term.expect("Go ahead? nick ('nick' is optional) Answer it? [y/n] (n):")
    shown = len(term.seen)
    term.send(wants)
    if wants == "y":
        term.expect("Go ahead?", timeout=30, after=shown)  # now the field itself
        term.send("A")
    assert term.finish(timeout=30) == 0
    assert _outcome(term.seen)["text"] == f"accept {sent}"


# ── the reference MCP server's elicitation and progress, on a terminal ────────


def test_reference_server_elicitation_prompts_show_each_field_description(
    tmp_path: Path,
) -> None:
    """Each prompt shows the field's description (it had shown its title, "String:", and
    the user never saw "Your full, legal name"); optional fields may be left out."""
    from real_servers import everything_workspace

    ws = everything_workspace(tmp_path, "trigger-elicitation-request")
    term = Terminal(
        "bridge", "run", "trigger-elicitation-request", "-w", str(ws), "--json", term="xterm"
    )  # not dumb: a dumb terminal folds a prompt at 80 columns
    term.expect("Please provide inputs for the following fields: Your full, legal name", 60)
    term.send("Ada")
    term.expect("Agree to the terms and conditions ('check' is optional) Answer it?")
    shown = len(term.seen)
    term.send("y")
    term.expect("Agree to the terms and conditions \x1b[1m[y/n]", after=shown)
    term.send("y")
    for _ in range(11):  # the other optional fields: left out
        shown = len(term.seen)
        term.expect("is optional) Answer it?", after=shown)
        term.send("n")
    assert term.finish(timeout=30) == 0
    text = _outcome(term.seen)["text"]
    assert "- Name: Ada\n- Agreed to terms: true" in text
    assert '"firstLine"' not in text  # left out: not even its default was sent


def test_reference_server_progress_drives_a_progress_bar(tmp_path: Path) -> None:
    from real_servers import everything_workspace

    ws = everything_workspace(tmp_path, "trigger-long-running-operation")
    args = json.dumps({"duration": 2, "steps": 4})
    term = Terminal(
        "bridge", "run", "trigger-long-running-operation", "-w", str(ws), "--args", args,
        term="xterm",
    )  # fmt: skip
    term.expect("1/4", timeout=60)
    term.expect("4/4", timeout=30)
    assert term.finish(timeout=30) == 0
    assert "Long running operation completed" in term.seen


# ── a question the server asks during a call, and Ctrl-C at a prompt ──────────


def _asking_workspace(tmp_path: Path) -> Path:
    """A server whose tool `t` asks a yes/no form during its call."""
    from bridge_support import asking_server
    from real_servers import workspace

    yes_no = {"type": "object", "properties": {}}
    form = {"mode": "form", "message": "Go on?", "requestedSchema": yes_no}
    server = asking_server(tmp_path, "elicitation/create", form)
    return workspace(tmp_path / "ws", "s", server, {"t": "t"})


def test_the_calls_timeout_waits_while_its_question_is_answered(tmp_path: Path) -> None:
    """The user's time to answer is not the server's: an answer typed after the call's
    whole --timeout still reaches the server (the call had timed out under the prompt)."""
    term = Terminal("bridge", "run", "t", "-w", str(_asking_workspace(tmp_path)), "--json",
                    "--timeout", "5")  # fmt: skip
    term.expect("Go on? [y/n]", timeout=60)
    time.sleep(6)  # longer than the call's --timeout
    term.send("y")
    assert term.finish(timeout=30) == 0
    assert json.loads(_outcome(term.seen)["text"]) == {"action": "accept", "content": {}}


@pytest.mark.parametrize(
    ("tool", "args", "prompt"),
    [
        ("legacy", '{"action": "confirm"}', "Apply? [y/n]"),  # a local tool's question
        ("mcp_delete_file", '{"path": "a.txt"}', "Delete a.txt? [y/n]"),  # input_required
        ("t", "{}", "Go on? [y/n]"),  # elicitation/create during the call
    ],
    ids=["local", "input_required", "during the call"],
)
def test_ctrl_c_at_a_prompt_ends_the_run_at_once(
    ws: Path, tmp_path: Path, tool: str, args: str, prompt: str
) -> None:
    """The prompt waits in a worker thread, which a signal never reaches: it stops
    reading once the run is stopping, and the run exits 130 without a keystroke."""
    workspace = {"legacy": ws, "t": None}.get(tool, EXAMPLES / "tools")
    workspace = workspace or _asking_workspace(tmp_path)
    # As from a terminal: a job started in the background has SIGINT ignored, which a
    # child inherits (and then never gets a KeyboardInterrupt).
    ignored = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        term = Terminal("bridge", "run", tool, "-w", str(workspace), "--args", args, "--json")
    finally:
        signal.signal(signal.SIGINT, ignored)
    term.expect(prompt, timeout=60)
    term.proc.send_signal(signal.SIGINT)
    assert term.finish(timeout=15) == 130
    assert "Traceback" not in term.seen
