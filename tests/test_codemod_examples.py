"""Acceptance for the bundled example tools (issue 4).

Each example tool is copied to a scratch workspace, rewritten by the real
`jp-migrate tools`, and both versions run as processes the way JP runs them
(command template from `.jp/mcp/tools/*.toml`, same arguments and answers).
The legacy run read by the legacy host and the rewritten run read by the RFD
058 host must compare as a match or an expected difference (SPEC §5). The
rewritten sources must compile, pass `ruff check --select E9,F`, and pass the
tools' own tests.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from codemod_support import run_tool
from conftest import EXAMPLES, REPO, run_cli

from jp_migrate.convert.compare import compare
from jp_migrate.convert.host import blocks_outcome, legacy_outcome

TOOLS = EXAMPLES / "tools"
TOOL_FILES = sorted(p.name for p in TOOLS.glob("*.py"))

# (tool, arguments, answers): every branch of every example tool.
CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("word_count", {"path": "notes/plan.md"}, {}),
    ("word_count", {"path": "notes/zoë.txt"}, {}),
    ("word_count", {"path": "missing.txt"}, {}),
    ("grep_notes", {"pattern": "codemod", "directory": "notes"}, {}),
    ("grep_notes", {"pattern": "nothing matches this"}, {}),
    ("grep_notes", {"pattern": "(unclosed", "directory": "notes"}, {}),
    ("grep_notes", {"pattern": "x", "directory": "nowhere"}, {}),
    ("service_status", {"service": "web"}, {}),
    ("service_status", {"service": "db"}, {}),
    ("service_status", {"service": "cache"}, {}),
    ("delete_file", {"path": "notes/plan.md"}, {}),
    ("delete_file", {"path": "notes/empty.txt"}, {}),
    ("delete_file", {"path": "notes/plan.md"}, {"mode": "trash"}),
    ("delete_file", {"path": "notes/plan.md"}, {"mode": "delete", "confirm": False}),
    ("delete_file", {"path": "notes/plan.md"}, {"mode": "trash", "confirm": True}),
    ("delete_file", {"path": "notes/plan.md"}, {"mode": "delete", "confirm": True}),
    ("delete_file", {"path": "gone.txt"}, {}),
]


def _workspace(root: Path) -> Path:
    """A copy of the example tools (sources, configs, tests) with a few notes to work on."""
    shutil.copytree(
        TOOLS, root, ignore=shutil.ignore_patterns("__pycache__", "conversations", ".pytest_cache")
    )
    notes = root / "notes"
    notes.mkdir()
    (notes / "plan.md").write_text("# Plan\nship the codemod\nthen the bridge\n", encoding="utf-8")
    (notes / "zoë.txt").write_text("naïve café 🌱\n", encoding="utf-8")
    (notes / "empty.txt").write_text("", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _workspace(tmp_path_factory.mktemp("rewritten") / "tools")
    done = run_cli("tools", str(root))
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def test_the_examples_are_legacy_tools_the_codemod_rewrites() -> None:
    done = run_cli("tools", "--check", str(TOOLS))
    assert done.returncode == 1, done.stdout + done.stderr
    changed = {line.split(":")[0] for line in done.stdout.splitlines() if ": codemod-" in line}
    assert {Path(p).name for p in changed} == {
        "_outcome.py",
        "word_count.py",
        "service_status.py",
        "delete_file.py",
    }
    assert "unhandled" not in done.stdout


def test_the_rewrite_is_idempotent(rewritten: Path) -> None:
    done = run_cli("tools", "--check", str(rewritten))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("tool", "arguments", "answers"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_rewritten_tool_behaves_like_the_original(
    tool: str, arguments: dict[str, Any], answers: dict[str, Any], rewritten: Path, tmp_path: Path
) -> None:
    # Each side gets fresh notes: delete_file really deletes.
    before = _workspace(tmp_path / "before")
    after = tmp_path / "after"
    shutil.copytree(rewritten, after, ignore=shutil.ignore_patterns("__pycache__", ".trash"))
    shutil.rmtree(after / "notes")
    shutil.copytree(before / "notes", after / "notes")
    control = legacy_outcome(run_tool(before, tool, arguments, answers)).outcome
    candidate = blocks_outcome(run_tool(after, tool, arguments, answers)).outcome
    assert control.protocol == "outcome", control.text
    assert candidate.protocol == "blocks", candidate.text
    verdict = compare(control, candidate)
    assert verdict.ok, (verdict, control, candidate)
    assert sorted(p.relative_to(before).as_posix() for p in before.rglob("notes/*")) == sorted(
        p.relative_to(after).as_posix() for p in after.rglob("notes/*")
    )


def _ruff(directory: Path) -> subprocess.CompletedProcess[str]:
    """ruff's syntax and pyflakes checks (E9, F) on the example tools in `directory`."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--select",
            "E9,F",
            "--isolated",
            *[str(directory / name) for name in TOOL_FILES],
        ],
        capture_output=True,
        text=True,
        check=False,
    )


def test_rewritten_sources_compile_and_pass_ruff(rewritten: Path) -> None:
    for name in TOOL_FILES:
        compile((rewritten / name).read_text("utf-8"), name, "exec")
    before, after = _ruff(TOOLS), _ruff(rewritten)
    assert before.returncode == 0, before.stdout
    assert after.returncode == 0, after.stdout


def _pytest(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-o",
            "addopts=",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(directory),
            str(directory / "tests"),
        ],
        capture_output=True,
        text=True,
        cwd=directory,
        timeout=300,
        check=False,
    )


def test_the_example_tools_own_tests_pass() -> None:
    done = _pytest(TOOLS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout


def test_the_example_tools_own_tests_pass_on_the_rewritten_copies(rewritten: Path) -> None:
    done = _pytest(rewritten)
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout and "failed" not in done.stdout


def test_the_tool_configs_name_every_tool() -> None:
    configs = {p.stem for p in (TOOLS / ".jp" / "mcp" / "tools").glob("*.toml")}
    assert configs >= {"word_count", "grep_notes", "service_status", "delete_file"}
    assert REPO in TOOLS.parents
