"""`check` with a cases file: the tool as it is against a migrated scratch copy, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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


WHERE_TOOL = """\
import json
import os
import sys

args = json.loads(sys.argv[1])
if args.get("crash"):
    raise SystemExit(f"crashed in {os.path.abspath(__file__)}")
print(json.dumps({"type": "success", "content": os.path.abspath(args["path"])}))
"""


def test_paths_of_the_scratch_copy_read_as_the_workspace(tmp_path: Path) -> None:
    """A tool that prints absolute paths behaves the same in the copy: a match, and the same report."""
    ws = workspace(tmp_path / "ws")
    (ws / "where.py").write_text(WHERE_TOOL)
    (ws / ".jp" / "mcp" / "tools" / "where.toml").write_text(
        '[conversation.tools.where]\nsource = "local"\n'
        'command = "python3 where.py {{tool.arguments}}"\n'
    )
    cases = [{"arguments": {"path": "greet.py"}}, {"arguments": {"path": "x", "crash": True}}]
    (ws / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    (ws / ".jp-migrate.toml").write_text('cases = "cases.jsonl"\n[verify]\ntool = "where"\n')
    runs = [
        run_cli("check", "ws", "--no-store", "--no-tools", "--report", "json", cwd=tmp_path)
        for _ in range(2)
    ]
    assert runs[0].returncode == 0, runs[0].stdout + runs[0].stderr
    assert runs[0].stdout == runs[1].stdout  # nothing of the scratch copy's name in the report
    verdicts = [c["verdict"] for c in json.loads(runs[0].stdout)["verify"]]
    assert verdicts == ["match", "match"]
    assert str(ws.resolve() / "greet.py") in runs[0].stdout


def test_a_tool_source_that_cannot_be_parsed_does_not_stop_the_cases(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    (ws / "broken.py").write_text("def f(:\n")
    result = run_cli("check", "ws", "--no-store", "--report", "json", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    data = json.loads(result.stdout)
    assert [c["verdict"] for c in data["verify"]] == ["match", "expected"]
    (broken,) = [f for f in data["tools"] if f["status"] == "error"]
    assert broken["path"].endswith("broken.py") and "jp-migrate-check-" not in result.stderr


def test_a_tool_outside_the_workspace_runs_in_the_copy(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    (tmp_path / "common").mkdir()  # plain text: the same to both hosts
    (tmp_path / "common" / "greet.py").write_text("import sys\nprint('hi ' + sys.argv[1])\n")
    (ws / ".jp" / "mcp" / "tools" / "greet.toml").write_text(
        '[conversation.tools.greet]\nsource = "local"\n'
        'command = "python3 ../common/greet.py {{tool.arguments}}"\n'
    )
    result = run_cli("check", "ws", "--no-store", "--no-tools", "--report", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [c["verdict"] for c in json.loads(result.stdout)["verify"]] == ["match", "match"]


def test_a_tool_named_by_its_absolute_path_in_the_workspace_runs_from_the_copy(
    tmp_path: Path,
) -> None:
    """The copy's migrated source runs, not the workspace's own file (which stays untouched)."""
    ws = workspace(tmp_path / "ws")
    (ws / ".jp" / "mcp" / "tools" / "greet.toml").write_text(
        '[conversation.tools.greet]\nsource = "local"\n'
        f'command = "python3 {ws / "greet.py"} {{{{tool.arguments}}}}"\n'
    )
    before = snapshot(ws)
    result = run_cli("check", "ws", "--no-store", "--report", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # greet.py would change
    assert [c["verdict"] for c in json.loads(result.stdout)["verify"]] == ["match", "expected"]
    assert snapshot(ws) == before


def test_check_from_a_subdirectory_runs_the_cases_of_its_workspace(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    (ws / "tests").mkdir()
    result = run_cli("check", "--no-store", "--report", "json", cwd=ws / "tests")
    assert result.returncode == 1, result.stderr  # greet.py would change; the cases ran
    assert [c["verdict"] for c in json.loads(result.stdout)["verify"]] == ["match", "expected"]


def test_check_of_one_tool_source_runs_no_cases(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    result = run_cli("check", str(ws / "other.py"), "--report", "json", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert data["verify"] is None and [f["path"] for f in data["tools"]] == ["ws/other.py"]


def test_exclude_patterns_are_anchored_where_they_are_written(tmp_path: Path) -> None:
    """`/x.py` in a config is the config directory's own x.py, as in a .gitignore there."""
    ws = workspace(tmp_path / "ws")
    (ws / "sub").mkdir()
    (ws / "sub" / "other.py").write_text(OTHER_TOOL)
    (ws / ".jp-migrate.toml").write_text('exclude = ["/other.py"]\nstore = false\n')
    for cwd in (ws, tmp_path):  # the same wherever check runs
        result = run_cli("check", str(ws), "--report", "json", cwd=cwd)
        files = json.loads(result.stdout)["tools"]
        paths = sorted(
            (cwd / f["path"]).resolve().relative_to(ws.resolve()).as_posix() for f in files
        )
        assert paths == ["greet.py", "sub/other.py"], result.stdout
    flag = run_cli("tools", "--check", "--exclude", "/sub/", ".", cwd=ws)
    assert "sub/other.py" not in flag.stdout and "other.py" in flag.stdout


def test_check_leaves_a_symlinked_tool_s_target_alone_and_runs_its_copy(tmp_path: Path) -> None:
    """The copy's symlink would lead the rewrite to the user's own file: it is copied instead.
    The tools step says the link is one `tools` would refuse to write through (exit 2)."""
    ws = workspace(tmp_path / "ws")
    (tmp_path / "common").mkdir()
    real = tmp_path / "common" / "greet.py"
    real.write_text(LEGACY_TOOL)
    (ws / "greet.py").unlink()
    (ws / "greet.py").symlink_to(Path("..") / "common" / "greet.py")
    (ws / "other.py").chmod(0o444)  # and a read-only tool: its copy is still migrated
    result = run_cli("check", "ws", "--no-store", "--report", "json", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        "error: ws/greet.py: a symlink (to ../common/greet.py): not followed "
        "(jp-migrate never writes through a link)\n"
    )
    assert [c["verdict"] for c in json.loads(result.stdout)["verify"]] == ["match", "expected"]
    assert real.read_text() == LEGACY_TOOL and (ws / "greet.py").is_symlink()


def test_a_read_only_tool_is_reported_as_would_change_by_a_dry_run(tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    (ws / "greet.py").chmod(0o444)
    result = run_cli("tools", "--check", str(ws / "greet.py"))
    assert result.returncode == 1 and "error:" not in result.stderr, result.stderr
    assert "1 would be rewritten, 0 with unhandled sites, 0 errors" in result.stderr


SIDE_EFFECTS = """\
import json
import sys

import helper  # byte-compiled into __pycache__ when imported

open("log.txt", "a").write("ran\\n")
data = open("data/value.txt").read().strip()  # through a link to a directory beside the workspace
print(json.dumps({"type": "success", "content": helper.greet(data)}))
"""


def test_check_runs_both_sides_in_copies_links_out_of_the_workspace_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing the tools write (files, __pycache__) lands in the workspace; a relative
    link to a directory beside it still leads there from the copies."""
    ws = workspace(tmp_path / "ws")
    (ws / "greet.py").write_text(SIDE_EFFECTS)
    (ws / "helper.py").write_text("def greet(name):\n    return 'hello ' + name\n")
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "value.txt").write_text("Ada\n")
    (ws / "data").symlink_to(Path("..") / "common", target_is_directory=True)
    before = snapshot(ws)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    result = run_cli("check", "ws", "--no-store", "--report", "json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # greet.py would change
    assert [c["verdict"] for c in json.loads(result.stdout)["verify"]] == ["match", "match"]
    assert snapshot(ws) == before
    assert not (ws / "__pycache__").exists() and not (ws / "log.txt").exists()
