"""Proven with `jp-migrate verify`: each adapted tool against its original, over cases covering
every branch, gives only match or a named expected difference (issue 24)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from adapt_support import verify
from bridge_support import python_on_path
from conftest import EXAMPLES, REPO, run_cli

DATA = REPO / "tests" / "data" / "adapt"
ADAPTER = f"{sys.executable} -m jp_migrate"  # how the adapted configs run jp-migrate here
ANSWERS = "'{{tool.arguments.action}}' '{{tool.answers.confirm}}' '{{tool.answers.pick}}'"

# What each case of tests/data/adapt/cases.jsonl must be, by its name.
EXPECTED = {
    "success, non-ASCII": ("match", []),
    "transient error with a trace": ("expected", ["transient-error-in-meta"]),
    "permanent error": ("expected", ["error-text-is-message"]),
    "a question answered yes": ("match", []),
    "a question answered no": ("match", []),
    "a select question": ("match", []),
    "a select question left to its default": ("match", []),
    "raw text": ("match", []),
    "raw output, exit 3": ("expected", ["failure-text-in-content"]),
    "an envelope already": ("expected", ["content-array-parsed"]),
}


@pytest.fixture(autouse=True)
def _python3_is_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", python_on_path()["PATH"])


def adapt_config(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("adapt", "--config", str(ws), "--adapter-command", ADAPTER, *args)


def verdicts(report: dict) -> dict[str, tuple[str, list[str]]]:
    return {
        case["inputs"]["case"].split(" (", 1)[1].rstrip(")"): (case["verdict"], case["differences"])
        for case in report["verify"]
    }


def _workspace(root: Path, tools: dict[str, str]) -> Path:
    """A workspace whose .jp/mcp/tools/<name>.toml runs each command (tool files copied in)."""
    (root / ".jp" / "mcp" / "tools").mkdir(parents=True)
    for name, command in tools.items():
        toml = f'[conversation.tools.{name}]\nsource = "local"\ncommand = "{command}"\n'
        (root / ".jp" / "mcp" / "tools" / f"{name}.toml").write_text(toml)
    for source in ("tool.sh", "tool.js", "tool.c"):
        shutil.copy(DATA / source, root / source)
    return root


@pytest.mark.parametrize("language", ["bash", "node", "c"])
def test_tools_in_other_languages(tmp_path: Path, language: str) -> None:
    """A bash, a Node.js and a compiled (C) tool: found by --unmigratable, adapted, verified."""
    if language == "bash" and shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    if language == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    if language == "c" and shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    command = {
        "bash": f"bash tool.sh {ANSWERS}",
        "node": f"node tool.js {ANSWERS}",
        "c": f"./tool {ANSWERS}",
    }[language]
    original = _workspace(tmp_path / "original", {"tool": command})
    if language == "c":
        subprocess.run(["gcc", "-o", str(original / "tool"), str(original / "tool.c")], check=True)
    adapted = tmp_path / "adapted"
    shutil.copytree(original, adapted)
    done = adapt_config(adapted, "--unmigratable")
    assert done.returncode == 0, done.stderr
    assert "tool 'tool': needs the adapter" in done.stdout
    assert "tool 'tool': adapted" in done.stdout
    report = verify(original, adapted, "tool", DATA / "cases.jsonl", tmp_path / "report.json")
    assert verdicts(report) == EXPECTED


EXAMPLE_TOOLS = ["delete_file", "grep_notes", "service_status", "word_count"]


def test_the_bundled_example_tools(tmp_path: Path) -> None:
    original = tmp_path / "original"
    shutil.copytree(EXAMPLES / "tools", original)
    (tmp_path / "mcp_server").symlink_to(EXAMPLES / "mcp_server")
    adapted = tmp_path / "adapted"
    shutil.copytree(original, adapted)
    done = adapt_config(adapted, *(f"--tool={name}" for name in EXAMPLE_TOOLS))
    assert done.returncode == 0, done.stderr
    for name in EXAMPLE_TOOLS:
        report = verify(
            original, adapted, name, original / "cases.jsonl", tmp_path / f"{name}.json"
        )
        assert report["verify"], name
        for case in report["verify"]:
            assert case["verdict"] in ("match", "expected"), case


MCP_TOOLS = ["greet", "divide", "service_status", "read_snippet", "delete_file"]


def test_the_example_mcp_server_behind_adapt_mcp(tmp_path: Path) -> None:
    """`--jp` as the legacy host reads it, against `--jp` behind `adapt --mcp` as the new
    host reads it (the native mode against it: tests/test_adapt_mcp.py)."""
    original = tmp_path / "tools"
    shutil.copytree(EXAMPLES / "tools", original)
    (tmp_path / "mcp_server").symlink_to(EXAMPLES / "mcp_server")
    adapted = tmp_path / "adapted"
    adapted.mkdir()
    shutil.copytree(original / ".jp", adapted / ".jp")
    # The config names the server as ../mcp_server/server.py: the symlink beside both.
    done = adapt_config(adapted, "--server", "example_jp")
    assert done.returncode == 0, done.stderr
    assert "MCP server 'example_jp': adapted" in done.stdout
    cases = tmp_path / "cases.jsonl"
    lines = [
        json.loads(line) for line in (original / "cases.jsonl").read_text().splitlines() if line
    ]
    cases.write_text(
        "".join(
            json.dumps({**case, "tool": case["tool"] + "_jp"}) + "\n"
            for case in lines
            if case["tool"].startswith("mcp_")
        )
    )
    seen: set[tuple[str, ...]] = set()
    for name in MCP_TOOLS:
        tool = f"mcp_{name}_jp"
        report = verify(original, adapted, tool, cases, tmp_path / f"{name}.json")
        assert report["verify"], name
        for case in report["verify"]:
            assert case["verdict"] in ("match", "expected"), case
        seen.update((tool, case["verdict"], *case["differences"]) for case in report["verify"])
    # Both of D31's error kinds met their named difference (the adapter did convert them).
    assert ("mcp_divide_jp", "expected", "error-text-is-message") in seen
    assert ("mcp_service_status_jp", "expected", "transient-error-in-meta") in seen


def test_questions_answered_through_elicitation(tmp_path: Path) -> None:
    """No answers given up front: each question of the D31 server reaches the new host as an
    elicitation through the adapter, is answered (its default), and the answers go back to
    the server on its re-calls; the legacy host's reading of the same server agrees."""
    original = tmp_path / "original"
    (original / ".jp" / "mcp" / "tools").mkdir(parents=True)
    shutil.copy(DATA / "d31_server.py", original / "d31_server.py")
    (original / ".jp" / "config.toml").write_text(
        '[providers.mcp.d31]\ntype = "stdio"\ncommand = "python3"\narguments = ["d31_server.py"]\n'
    )
    (original / ".jp" / "mcp" / "tools" / "rename.toml").write_text(
        '[conversation.tools.rename]\nsource = "mcp.d31.rename"\n'
    )
    adapted = tmp_path / "adapted"
    shutil.copytree(original, adapted)
    assert adapt_config(adapted, "--server", "d31").returncode == 0
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"name": "both asked", "arguments": {"path": "a.txt"}}\n'
        '{"name": "style given, confirmation asked", "arguments": {"path": "a.txt"},'
        ' "answers": {"style": "kebab"}}\n'
        '{"name": "declined up front", "arguments": {"path": "a.txt"},'
        ' "answers": {"style": "kebab", "confirm": false}}\n'
    )
    report = verify(original, adapted, "rename", cases, tmp_path / "report.json")
    assert verdicts(report) == {
        "both asked": ("match", []),
        "style given, confirmation asked": ("match", []),
        "declined up front": ("match", []),
    }
    texts = [case["candidate"]["text"] for case in report["verify"]]
    assert texts == ["renamed a.txt (snake)", "renamed a.txt (kebab)", "kept a.txt"]
    # The candidate asked through the adapter: its normalized rounds are MCP input_required.
    direct = run_cli(
        "bridge", "run", "rename", "-w", str(adapted), "--args", '{"path": "b.txt"}', "--json"
    )
    assert json.loads(direct.stdout)["text"] == "renamed b.txt (snake)", direct.stderr
