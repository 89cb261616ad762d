"""`jp-migrate tools` and the files it is given: links, owners, modes, odd sources, ignore files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_cli

SUCCESS = 'import json\nprint(json.dumps({"type": "success", "content": "ok"}))\n'
MIGRATED = 'import json\nprint(json.dumps({"content": [{"type": "text", "text": "ok"}]}))\n'


def _one_line_error(stderr: str, name: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, stderr
    assert name in lines[0] and "Traceback" not in stderr
    return lines[0]


def test_a_symlinked_tool_is_refused_never_written_through(tmp_path: Path) -> None:
    """The one link policy: a link where jp-migrate writes is refused, naming its target;
    the other files are still migrated."""
    (tmp_path / "real").mkdir()
    (tmp_path / "tools").mkdir()
    real = tmp_path / "real" / "tool.py"
    real.write_text(SUCCESS, "utf-8")
    link = tmp_path / "tools" / "tool.py"
    link.symlink_to(Path("..") / "real" / "tool.py")
    (tmp_path / "tools" / "other.py").write_text(SUCCESS, "utf-8")
    done = run_cli("tools", str(tmp_path / "tools"))
    assert done.returncode == 2, done.stderr
    assert "a symlink (to ../real/tool.py): not followed" in _one_line_error(done.stderr, "tool.py")
    assert link.is_symlink() and os.readlink(link) == str(Path("..") / "real" / "tool.py")
    assert real.read_text("utf-8") == SUCCESS
    assert (tmp_path / "tools" / "other.py").read_text("utf-8") == MIGRATED
    assert run_cli("tools", str(real)).returncode == 0  # its target, named, is migrated
    assert real.read_text("utf-8") == MIGRATED


def test_a_fifo_among_the_sources_is_one_line_not_a_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "tool.py").write_text(SUCCESS, "utf-8")
    done = run_cli("tools", str(tmp_path))
    assert done.returncode == 2
    assert "not a regular file" in _one_line_error(done.stderr, "pipe.py")
    assert (tmp_path / "tool.py").read_text("utf-8") == MIGRATED


@pytest.mark.parametrize("kind", ["read-only", "hard-linked"])
def test_a_file_a_rewrite_would_change_more_than_its_text_is_left_alone(
    tmp_path: Path, kind: str
) -> None:
    tool = tmp_path / "tool.py"
    tool.write_text(SUCCESS, "utf-8")
    (tmp_path / "other.py").write_text(SUCCESS, "utf-8")
    if kind == "read-only":
        tool.chmod(0o444)
    else:
        os.link(tool, tmp_path / "twin.txt")
    done = run_cli("tools", str(tmp_path))
    assert done.returncode == 2
    line = _one_line_error(done.stderr, "tool.py")
    assert kind in line
    assert tool.read_text("utf-8") == SUCCESS
    assert (tmp_path / "other.py").read_text("utf-8") == MIGRATED
    if kind == "hard-linked":
        assert tool.stat().st_nlink == 2


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file away needs root")
def test_a_rewritten_file_keeps_its_owner(tmp_path: Path) -> None:
    tool = tmp_path / "tool.py"
    tool.write_text(SUCCESS, "utf-8")
    os.chown(tool, 65534, 65534)
    done = run_cli("tools", str(tool))
    assert done.returncode == 0, done.stderr
    assert tool.read_text("utf-8") == MIGRATED
    assert (tool.stat().st_uid, tool.stat().st_gid) == (65534, 65534)


def test_a_null_byte_is_a_syntax_error(tmp_path: Path) -> None:
    tool = tmp_path / "tool.py"
    tool.write_bytes(b'import json\nprint(json.dumps({"type": "success", "content": "a\x00"}))\n')
    done = run_cli("tools", str(tmp_path))
    assert done.returncode == 2
    assert "2:51: syntax error: a null byte" in _one_line_error(done.stderr, "tool.py")


def test_a_deeply_nested_expression_is_migrated(tmp_path: Path) -> None:
    """400 implicitly concatenated lines: past libcst's recursion at the default limit."""
    lines = "".join(f'    "line {i}\\n"\n' for i in range(400))
    tool = tmp_path / "tool.py"
    tool.write_text(
        f'import json\nP = (\n{lines})\nprint(json.dumps({{"type": "success", "content": P}}))\n',
        "utf-8",
    )
    done = run_cli("tools", str(tool))
    assert done.returncode == 0, done.stderr
    assert tool.read_text("utf-8").endswith(
        'print(json.dumps({"content": [{"type": "text", "text": P}]}))\n'
    )


def test_a_pre_amble_a_comprehension_cannot_hold_is_unhandled(tmp_path: Path) -> None:
    tool = tmp_path / "tool.py"
    source = (
        "import json\n"
        "def ask(p):\n"
        '    print(json.dumps({"type": "needs_input", "question": {"id": "ok", "text": "Apply?",'
        ' "pre_amble": (d := p), "answer_type": "Boolean"}}))\n'
    )
    tool.write_text(source, "utf-8")
    done = run_cli("tools", str(tool))
    assert done.returncode == 1
    assert "pre_amble holds `:=` or `yield`" in done.stdout
    assert tool.read_text("utf-8") == source


def test_a_rewrite_that_would_not_compile_is_never_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last net under the transforms: their output is compiled before it is kept."""
    from jp_migrate.codemod import engine

    class Broken:
        code = 'import json\nprint(json.dumps({"content": [}))\n'

    monkeypatch.setattr(engine, "apply", lambda module, findings: Broken())
    result = engine.migrate_source(SUCCESS)
    assert result.status == "error" and result.output is None
    assert result.message.startswith("the rewrite would not compile (2:")


def test_a_file_this_python_cannot_compile_is_still_migrated(tmp_path: Path) -> None:
    """Newer syntax, or `return` at module level: not ours to judge; the rewrite goes ahead."""
    tool = tmp_path / "tool.py"
    tool.write_text(SUCCESS + "return 1\n", "utf-8")
    done = run_cli("tools", str(tool))
    assert done.returncode == 0, done.stderr
    assert tool.read_text("utf-8") == MIGRATED + "return 1\n"


def test_gitignore_lines_git_cannot_use_are_ignored_as_git_does(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("build/\n!\ntrailing\\\n", "utf-8")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "tool.py").write_text(SUCCESS, "utf-8")
    (tmp_path / "tool.py").write_text(SUCCESS, "utf-8")
    done = run_cli("tools", "--check", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "tool.py" in done.stdout and "build" not in done.stdout


def test_an_exclude_pattern_git_cannot_use_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "tool.py").write_text(SUCCESS, "utf-8")
    done = run_cli("tools", "--exclude", "!", str(tmp_path))
    assert done.returncode == 2
    assert "--exclude '!': not a gitignore pattern" in done.stderr
    assert "Traceback" not in done.stderr
    assert (tmp_path / "tool.py").read_text("utf-8") == SUCCESS


def test_exclude_patterns_for_a_path_outside_the_current_directory(tmp_path: Path) -> None:
    """Outside the directory the patterns were written in, they are anchored at PATH."""
    (tmp_path / "here").mkdir()
    (tmp_path / "there" / "sub").mkdir(parents=True)
    for path in (tmp_path / "there" / "gen.py", tmp_path / "there" / "sub" / "gen.py"):
        path.write_text(SUCCESS, "utf-8")
    done = run_cli("tools", "--check", "../there", "--exclude", "/gen.py", cwd=tmp_path / "here")
    assert done.returncode == 1, done.stderr
    assert "../there/sub/gen.py:" in done.stdout and "../there/gen.py:" not in done.stdout
