"""`check` with a cases file: the tool as it is against a migrated scratch copy, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

LEGACY_TOOL = """\
import json
import sys

args = json.loads(sys.argv[1])
name = args.get("name", "")
if not name:
    print(json.dumps({"type": "error", "message": "no name", "trace": [], "transient": False}))
else:
    print(json.dumps({"type": "success", "content": f"hello {name}"}))
"""

OTHER_TOOL = """\
import json
print(json.dumps({"type": "success", "content": "bonjour"}))
"""


def workspace(root: Path) -> Path:
    (root / ".jp" / "mcp" / "tools").mkdir(parents=True)
    (root / "greet.py").write_text(LEGACY_TOOL)
    (root / "other.py").write_text(OTHER_TOOL)
    (root / ".jp" / "mcp" / "tools" / "greet.toml").write_text(
        '[conversation.tools.greet]\nsource = "local"\ncommand = "python3 greet.py {{tool.arguments}}"\n'
        '[conversation.tools.other]\nsource = "local"\ncommand = "python3 other.py"\n'
    )
    cases = [
        {"tool": "greet", "arguments": {"name": "Ada"}},
        {"arguments": {"name": ""}, "name": "no name"},
    ]
    (root / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (root / ".jp-migrate.toml").write_text('cases = "cases.jsonl"\n[verify]\ntool = "greet"\n')
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_cases_match_or_differ_as_expected_against_the_migrated_copy(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    before = snapshot(ws)
    result = run_cli("check", "ws", "--report", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # greet.py itself would still change
    data = json.loads(result.stdout)
    assert [(c["index"], c["verdict"]) for c in data["verify"]] == [(0, "match"), (1, "expected")]
    assert data["verify"][1]["differences"] == ["error-text-is-message"]
    assert data["tools"][0]["status"] == "migrated"
    assert snapshot(ws) == before  # check writes nothing: the candidate ran in a scratch copy
    only_verify = run_cli("check", "ws", "--no-store", "--no-tools", cwd=tmp_path)
    assert only_verify.returncode == 0, only_verify.stdout + only_verify.stderr


def test_a_mismatch_exits_1(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    (ws / ".jp-migrate.toml").write_text(
        'cases = "cases.jsonl"\nstore = false\ntools = false\n[verify]\ntool = "greet"\n[verify.control]\ngreet = "other"\n'
    )
    result = run_cli("check", "ws", "--report", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert [c["verdict"] for c in json.loads(result.stdout)["verify"]] == ["mismatch", "mismatch"]


def test_a_case_without_a_tool_is_an_error_naming_its_line(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    (ws / ".jp-migrate.toml").write_text('cases = "cases.jsonl"\nstore = false\ntools = false\n')
    result = run_cli("check", "ws", cwd=tmp_path)
    assert result.returncode == 2
    assert "cases.jsonl:2 (no name): the case names no tool" in result.stderr
