"""Each example tool before and after `jp-migrate tools`, verified through the CLI with real processes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bridge_support import python_on_path
from conftest import EXAMPLES, run_cli

LOCAL_TOOLS = ["word_count", "grep_notes", "service_status", "delete_file"]


def _copy(dest: Path) -> Path:
    shutil.copytree(
        EXAMPLES / "tools", dest, ignore=shutil.ignore_patterns("conversations", "__pycache__")
    )
    return dest


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("examples")
    before, after = _copy(root / "before"), _copy(root / "after")
    migrated = run_cli("tools", str(after))
    assert migrated.returncode == 0, migrated.stdout + migrated.stderr
    assert (after / "word_count.py").read_text() != (before / "word_count.py").read_text()
    return before, after


@pytest.fixture(autouse=True)
def _python3_is_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    # The example configs run `python3 tool.py …`: make that this interpreter.
    monkeypatch.setenv("PATH", python_on_path()["PATH"])


def _verify(before: Path, after: Path, tool: str, report: Path) -> tuple[int, list[dict], str]:
    proc = run_cli(
        "verify", "--before-workspace", str(before), "--after-workspace", str(after), "--tool", tool,
        "--cases", str(EXAMPLES / "tools" / "cases.jsonl"), "--report", f"json={report}", "--report", "terminal",
    )  # fmt: skip
    return proc.returncode, json.loads(report.read_text())["verify"], proc.stdout + proc.stderr


@pytest.mark.parametrize("tool", LOCAL_TOOLS)
def test_example_tool_before_and_after_migration(
    pair: tuple[Path, Path], tool: str, tmp_path: Path
) -> None:
    rc, cases, out = _verify(*pair, tool, tmp_path / "report.json")
    assert rc == 0, out
    assert cases, f"no cases for {tool} in cases.jsonl"
    assert {c["verdict"] for c in cases} <= {"match", "expected"}, out


def test_a_broken_migration_is_a_mismatch_with_the_case_that_shows_it(
    pair: tuple[Path, Path], tmp_path: Path
) -> None:
    before, after = pair
    broken = _copy(tmp_path / "broken")
    shutil.copy(after / "word_count.py", broken / "word_count.py")
    source = (broken / "word_count.py").read_text()
    (broken / "word_count.py").write_text(source.replace("characters", "chars"))
    rc, cases, out = _verify(before, broken, "word_count", tmp_path / "report.json")
    assert rc == 1
    (bad,) = [c for c in cases if c["verdict"] == "mismatch"]
    assert bad["inputs"]["arguments"] == {"path": ".jp/config.toml"}
    assert bad["control"]["text"].endswith("characters") and bad["candidate"]["text"].endswith(
        "chars"
    )
    assert "mismatch" in out and "(a file)" in out
