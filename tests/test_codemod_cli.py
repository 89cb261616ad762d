"""`jp-migrate tools` end to end, through the real CLI (ruff's --check/--diff/exit-code contract)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

SUCCESS = 'import json\nprint(json.dumps({"type": "success", "content": "ok"}))\n'
MIGRATED = 'import json\nprint(json.dumps({"content": [{"type": "text", "text": "ok"}]}))\n'
DYNAMIC = 'def f(kind):\n    return {"type": kind, "content": "x"}\n'
PLAIN = "def add(a, b):\n    return a + b\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tool.py").write_text(SUCCESS, "utf-8")
    (tmp_path / "pkg" / "plain.py").write_text(PLAIN, "utf-8")
    return tmp_path


def test_rewrites_in_place_and_then_has_nothing_to_do(tree: Path) -> None:
    done = run_cli("tools", str(tree))
    assert done.returncode == 0, done.stderr
    assert (tree / "tool.py").read_text("utf-8") == MIGRATED
    assert f"{tree / 'tool.py'}:2:18: codemod-success-dict: " in done.stdout
    again = run_cli("tools", str(tree))
    assert again.returncode == 0 and (tree / "tool.py").read_text("utf-8") == MIGRATED
    assert "codemod-" not in again.stdout


def test_check_writes_nothing_and_exits_1(tree: Path) -> None:
    done = run_cli("tools", "--check", str(tree))
    assert done.returncode == 1
    assert (tree / "tool.py").read_text("utf-8") == SUCCESS
    assert "1 would be rewritten" in done.stderr


def test_check_exits_0_when_nothing_to_do(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(PLAIN, "utf-8")
    (tmp_path / "done.py").write_text(MIGRATED, "utf-8")
    done = run_cli("tools", "--check", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""


def test_diff_prints_a_unified_diff_without_writing(tree: Path) -> None:
    done = run_cli("tools", "--diff", "tool.py", cwd=tree)
    assert done.returncode == 1
    assert "--- a/tool.py\n+++ b/tool.py\n" in done.stdout
    assert '-print(json.dumps({"type": "success", "content": "ok"}))' in done.stdout
    assert '+print(json.dumps({"content": [{"type": "text", "text": "ok"}]}))' in done.stdout
    assert (tree / "tool.py").read_text("utf-8") == SUCCESS


def test_an_unhandled_site_is_reported_and_the_independent_ones_rewritten(tree: Path) -> None:
    (tree / "dyn.py").write_text(DYNAMIC + SUCCESS, "utf-8")
    done = run_cli("tools", "dyn.py", "tool.py", cwd=tree)
    assert done.returncode == 1
    assert any(
        line.startswith(
            'dyn.py:2:12: codemod-dynamic-type: the Outcome\'s "type" is not a constant'
        )
        for line in done.stdout.splitlines()
    ), done.stdout
    assert (tree / "dyn.py").read_text("utf-8") == DYNAMIC + MIGRATED
    assert (tree / "tool.py").read_text("utf-8") == MIGRATED  # the other file is still done
    check = run_cli("tools", "--check", "dyn.py", cwd=tree)
    assert check.returncode == 1


def test_a_syntax_error_is_one_line_and_the_rest_is_still_processed(tree: Path) -> None:
    (tree / "broken.py").write_text('print({"type": "success", "content": (\n', "utf-8")
    (tree / "broken_plain.py").write_text("def f(:\n", "utf-8")
    done = run_cli("tools", str(tree))
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {tree / 'broken.py'}: 1:38: syntax error: '(' was never closed",
        f"error: {tree / 'broken_plain.py'}: 1:7: syntax error: invalid syntax",
    ]
    assert "Traceback" not in done.stderr
    assert (tree / "tool.py").read_text("utf-8") == MIGRATED


def test_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    done = run_cli("tools", str(tmp_path / "nope"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {tmp_path / 'nope'}: no such file or directory"


def test_gitignore_and_exclude_are_honoured(tree: Path) -> None:
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("generated/\n", "utf-8")
    for sub in ("generated", "vendor", "pkg"):
        (tree / sub).mkdir(exist_ok=True)
        (tree / sub / "t.py").write_text(SUCCESS, "utf-8")
    (tree / "pkg" / "skip_me.py").write_text(SUCCESS, "utf-8")
    done = run_cli(
        "tools", "--check", "--exclude", "vendor/", "--exclude", "skip_*.py", ".", cwd=tree
    )
    touched = sorted({line.split(":")[0] for line in done.stdout.splitlines()})
    assert touched == ["pkg/t.py", "tool.py"]


def test_skip_comment_excludes_a_file(tree: Path) -> None:
    (tree / "tool.py").write_text("# jp-migrate: skip\n" + SUCCESS, "utf-8")
    done = run_cli("tools", "--check", str(tree))
    assert done.returncode == 0
    assert "1 skipped" in done.stderr


def test_jobs_gives_the_same_result(tmp_path: Path) -> None:
    for i in range(40):
        (tmp_path / f"t{i:02}.py").write_text(SUCCESS if i % 3 else PLAIN, "utf-8")
    one = run_cli("tools", "--check", ".", cwd=tmp_path)
    two = run_cli("tools", "--check", "--jobs", "2", ".", cwd=tmp_path)
    assert one.returncode == two.returncode == 1
    assert one.stdout == two.stdout and one.stdout.count("codemod-success-dict") == 26


def test_json_report(tree: Path) -> None:
    (tree / "dyn.py").write_text(DYNAMIC, "utf-8")
    done = run_cli("tools", "--check", "--report", "json=report.json", ".", cwd=tree)
    assert done.returncode == 1
    report = json.loads((tree / "report.json").read_text("utf-8"))
    assert report["command"] == "tools" and report["dry_run"] is True and report["exit_code"] == 1
    files = {f["path"]: f for f in report["tools"]}
    assert files["tool.py"]["status"] == "migrated"
    assert files["tool.py"]["sites"] == [
        {
            "line": 2,
            "column": 18,
            "rule": "codemod-success-dict",
            "action": "rewritten",
            "reason": "success Outcome dict → RFD 058 envelope",
        }
    ]
    assert files["dyn.py"]["sites"][0]["action"] == "unhandled"
    assert report["totals"]["unhandled_sites"] == 1


def test_a_bad_report_format_is_a_usage_error_before_anything_is_written(tree: Path) -> None:
    done = run_cli("tools", "--report", "yaml", str(tree))
    assert done.returncode == 2
    assert (tree / "tool.py").read_text("utf-8") == SUCCESS


def test_pre_commit_hook_runs_the_check() -> None:
    from conftest import REPO

    hooks = (REPO / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert "id: jp-migrate-tools" in hooks and "entry: jp-migrate tools --check" in hooks
    assert "types: [python]" in hooks


def test_a_directory_named_explicitly_is_walked_even_if_an_enclosing_gitignore_ignores_it(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("/vendored\n*_generated.py\n", "utf-8")
    tools = tmp_path / "vendored" / "tools"
    tools.mkdir(parents=True)
    (tools / "t.py").write_text(SUCCESS, "utf-8")
    (tools / "t_generated.py").write_text(SUCCESS, "utf-8")
    assert run_cli("tools", "--check", ".", cwd=tmp_path).stdout == ""
    done = run_cli("tools", "--check", "vendored/tools", cwd=tmp_path)
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == ["vendored/tools/t.py"]


def test_a_rewritten_script_stays_executable(tree: Path) -> None:
    script = tree / "tool.py"
    script.chmod(0o755)
    assert run_cli("tools", str(script)).returncode == 0
    assert script.read_text("utf-8") == MIGRATED
    assert script.stat().st_mode & 0o777 == 0o755
    assert not list(tree.glob(".*.tmp"))


def test_encodings_are_read_and_written_as_python_does(tmp_path: Path) -> None:
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + SUCCESS.encode())
    latin = tmp_path / "latin.py"
    latin.write_bytes(
        b'# -*- coding: latin-1 -*-\nprint({"type": "success", "content": "caf\xe9"})\n'
    )
    bad = tmp_path / "bad.py"
    bad.write_bytes(b'x = "caf\xe9 success"\n')
    done = run_cli("tools", str(tmp_path))
    assert done.returncode == 2
    assert bom.read_bytes() == b"\xef\xbb\xbf" + MIGRATED.encode()
    assert latin.read_bytes().endswith(b'[{"type": "text", "text": "caf\xe9"}]})\n')
    assert f"error: {bad}: cannot decode" in done.stderr


def test_a_nested_gitignore_applies_below_its_directory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "tools"
    sub.mkdir()
    (sub / ".gitignore").write_text("gen_*.py\n", "utf-8")
    (sub / "gen_a.py").write_text(SUCCESS, "utf-8")
    (sub / "real.py").write_text(SUCCESS, "utf-8")
    (tmp_path / "gen_b.py").write_text(SUCCESS, "utf-8")  # not below tools/: not ignored
    done = run_cli("tools", "--check", ".", cwd=tmp_path)
    assert sorted({line.split(":")[0] for line in done.stdout.splitlines()}) == [
        "gen_b.py",
        "tools/real.py",
    ]
