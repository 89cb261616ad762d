"""`jp-migrate adapt --config`: tomlkit edits of JP's tool configs, idempotent, undoable,
and RFD D08's conflict rule for values changed by hand."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from adapt_support import verify
from bridge_support import python_on_path
from conftest import EXAMPLES, REPO, run_cli

DATA = REPO / "tests" / "data" / "adapt"
ADAPTER = f"{sys.executable} -m jp_migrate"


@pytest.fixture(autouse=True)
def _python3_is_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", python_on_path()["PATH"])


def adapt(ws: Path, *args: str) -> tuple[int, str, str]:
    done = run_cli("adapt", "--config", str(ws), "--adapter-command", ADAPTER, *args)
    return done.returncode, done.stdout, done.stderr


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.toml"))}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "tools"
    shutil.copytree(EXAMPLES / "tools", root, ignore=shutil.ignore_patterns("conversations"))
    return root


ALL = ("--tool", "word_count", "--tool", "delete_file", "--server", "example_jp")


def test_adapt_then_undo_gives_back_every_byte(ws: Path) -> None:
    before = snapshot(ws)
    code, out, err = adapt(ws, *ALL)
    assert code == 0, err
    assert out.splitlines() == [
        ".jp/mcp/tools/word_count.toml: tool 'word_count': adapted",
        ".jp/mcp/tools/delete_file.toml: tool 'delete_file': adapted",
        ".jp/config.toml: MCP server 'example_jp': adapted",
    ]
    after = snapshot(ws)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {
        ".jp/config.toml",
        ".jp/mcp/tools/word_count.toml",
        ".jp/mcp/tools/delete_file.toml",
    }
    # Only the edited values' lines differ, each with its marker on a line of its own just
    # above it: comments, order and layout are kept.
    for name in changed:
        old, new = before[name].decode().splitlines(), after[name].decode().splitlines()
        markers = [i for i, line in enumerate(new) if line.startswith("# jp-migrate adapt: {")]
        assert len(markers) == 1 and new[markers[0] + 1].startswith(("command = ", "program = "))
        new = [line for i, line in enumerate(new) if i not in markers]
        assert len(old) == len(new)
        assert sum(a != b for a, b in zip(old, new, strict=True)) in (1, 2)
    code, _, err = adapt(ws, "--undo", *ALL)
    assert code == 0, err
    assert snapshot(ws) == before


def test_idempotent_and_check(ws: Path) -> None:
    assert adapt(ws, "--check", *ALL)[0] == 1
    assert adapt(ws, *ALL)[0] == 0
    once = snapshot(ws)
    code, out, _ = adapt(ws, *ALL)
    assert code == 0 and out.count("already adapted") == 3
    assert snapshot(ws) == once
    assert adapt(ws, "--check", *ALL)[0] == 0
    assert adapt(ws, "--check", "--undo", *ALL)[0] == 1
    assert snapshot(ws) == once


def test_diff_shows_and_writes_nothing(ws: Path) -> None:
    before = snapshot(ws)
    code, out, _ = adapt(ws, "--diff", "--tool", "word_count")
    assert code == 1
    assert "--- a/" in out and "+command = " in out and "adapt --name '{{tool.name}}' --" in out
    assert snapshot(ws) == before


def test_a_value_changed_by_hand_is_left_alone_without_force(ws: Path) -> None:
    adapt(ws, "--tool", "word_count")
    path = ws / ".jp" / "mcp" / "tools" / "word_count.toml"
    path.write_text(
        path.read_text().replace("-- python3 word_count.py", "-- python3 count_words.py")
    )
    edited = path.read_bytes()
    for extra in ((), ("--undo",)):
        code, out, _ = adapt(ws, *extra, "--tool", "word_count")
        assert code == 1
        assert "changed by hand since it was adapted: left alone (--force)" in out
        assert path.read_bytes() == edited
    # --force: the hand edit is kept and marked, never wrapped a second time.
    code, out, _ = adapt(ws, "--force", "--tool", "word_count")
    assert code == 0 and "marked as it is now" in out
    text = path.read_text()
    assert text.count(" adapt --name") == 1 and "count_words.py" in text
    assert adapt(ws, "--tool", "word_count")[1].strip().endswith("already adapted")
    # The marker no longer records what the adapter runs: --undo says so, and only with
    # --force restores what the adapter replaced in the first place, saying what.
    code, out, _ = adapt(ws, "--undo", "--tool", "word_count")
    assert code == 1 and "does not record what the adapter runs now" in out
    code, out, _ = adapt(ws, "--undo", "--force", "--tool", "word_count")
    assert code == 0 and "restored: command = \"python3 word_count.py '{{tool}}'\"" in out
    assert "command = \"python3 word_count.py '{{tool}}'\"\n" in path.read_text()


def test_a_command_already_running_the_adapter_is_not_wrapped_again(ws: Path) -> None:
    path = ws / ".jp" / "mcp" / "tools" / "word_count.toml"
    words = f"{ADAPTER} adapt --name x -- python3 word_count.py"
    path.write_text(path.read_text().replace("python3 word_count.py", f"{words}"))
    before = path.read_bytes()
    code, out, _ = adapt(ws, "--tool", "word_count")
    assert code == 0 and "already runs the adapter" in out
    assert path.read_bytes() == before


CONFIG_WITH_COMMENTS = """\
# Tools for this workspace.
extends = ["more/*.toml"]

[conversation.tools.inline]   # a table comment
source = "local"
command = { program = "sh tool.sh", args = ["{{tool.arguments.action}}", "{{tool.answers.confirm}}", "{{tool.answers.pick}}"], shell = true }  # run through sh
summary = 'kept as written'

[conversation.tools.overridden]
command = "sh tool.sh '{{tool.arguments.action}}' '{{tool.answers.confirm}}' '{{tool.answers.pick}}'"
"""

EXTENDED = """\
[conversation.tools.overridden]
source = "local"
command = "sh does-not-win.sh"  # config.toml sets this tool's command again

[conversation.tools.extended]
source = "local"
command = '''sh tool.sh '{{tool.arguments.action}}' '{{tool.answers.confirm}}' '{{tool.answers.pick}}' '''
"""


def _commented(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".jp" / "more").mkdir(parents=True)
    (root / ".jp" / "config.toml").write_text(CONFIG_WITH_COMMENTS)
    (root / ".jp" / "more" / "x.toml").write_text(EXTENDED)
    shutil.copy(DATA / "tool.sh", root / "tool.sh")
    return root


def test_the_file_jp_obeys_is_edited_and_comments_are_kept(tmp_path: Path) -> None:
    root = _commented(tmp_path)
    before = snapshot(root)
    code, out, err = adapt(root, "--tool", "inline", "--tool", "overridden", "--tool", "extended")
    assert code == 0, err
    assert sorted(out.splitlines()) == [
        ".jp/config.toml: tool 'inline': adapted",
        ".jp/config.toml: tool 'overridden': adapted",
        ".jp/more/x.toml: tool 'extended': adapted",
    ]
    config = (root / ".jp" / "config.toml").read_text()
    assert "# Tools for this workspace." in config and "# a table comment" in config
    assert "summary = 'kept as written'" in config
    extended = (root / ".jp" / "more" / "x.toml").read_text()
    assert 'command = "sh does-not-win.sh"  # config.toml sets' in extended  # not the winner
    adapt(root, "--undo", "--tool", "inline", "--tool", "overridden", "--tool", "extended")
    assert snapshot(root) == before


def test_adapted_commands_of_every_form_verify(tmp_path: Path) -> None:
    """The string and the `{program, args, shell = true}` forms, behind the adapter, run as
    before (verify: only match or named expected differences)."""
    original = _commented(tmp_path)
    adapted = tmp_path / "adapted"
    shutil.copytree(original, adapted)
    assert adapt(adapted, "--tool", "inline", "--tool", "extended")[0] == 0
    for tool in ("inline", "extended"):
        report = verify(original, adapted, tool, DATA / "cases.jsonl", tmp_path / f"{tool}.json")
        verdicts = [case["verdict"] for case in report["verify"]]
        assert len(verdicts) == 10 and set(verdicts) <= {"match", "expected"}


COMMAND_TABLES = """\
[conversation.tools.plain]
source = "local"  # a command table of its own, run directly

[conversation.tools.plain.command]
program = "python3"
args = ["word_count.py", "{{tool}}"] # the words

[conversation.tools.shelled]
source = "local"

[conversation.tools.shelled.command]
program = "python3 word_count.py"  # a shell line
args = ["{{tool}}"]
shell = true
"""


def test_a_command_table_of_its_own_is_adapted_in_place_and_undone(
    ws: Path, tmp_path: Path
) -> None:
    config = ws / ".jp" / "mcp" / "tools" / "tables.toml"
    config.write_text(COMMAND_TABLES)
    original = tmp_path / "original"
    shutil.copytree(ws, original)
    tools = ("--tool", "plain", "--tool", "shelled")
    code, out, err = adapt(ws, *tools)
    assert code == 0, err
    assert out.count("': adapted") == 2, out
    written = config.read_text()
    assert "[conversation.tools.plain.command]" in written
    # The shell command runs as `sh -c` behind the adapter: its arguments are never quoted
    # into a shell line.
    assert "shell = false" in written and "shell = true" not in written
    assert '"sh", "-c", "python3 word_count.py \\"$@\\"", "sh", "{{tool}}"]' in written
    assert adapt(ws, *tools)[1].count("already adapted") == 2
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"name": "counts", "arguments": {"path": "word_count.py"}}\n'
        '{"name": "no such file", "arguments": {"path": "nope.txt"}}\n'
    )
    for tool in ("plain", "shelled"):
        report = verify(original, ws, tool, cases, tmp_path / f"{tool}.json")
        assert [c["verdict"] for c in report["verify"]] == ["match", "expected"], report
    assert adapt(ws, "--undo", *tools)[0] == 0
    assert config.read_text() == COMMAND_TABLES


def test_a_tool_that_cannot_be_adapted_is_said_and_exits_1(ws: Path) -> None:
    config = ws / ".jp" / "mcp" / "tools" / "odd.toml"
    config.write_text("[conversation.tools.odd]\ncommand = { program = 3, args = [] }\n")
    code, out, _ = adapt(ws, "--tool", "odd")
    assert code == 1
    assert "tool 'odd': command.program is not a string" in out


def test_unmigratable_finds_what_the_codemod_refuses(ws: Path) -> None:
    code, out, _ = adapt(ws, "--unmigratable", "--check")
    assert (code, out.strip()) == (0, "no tool needs the adapter")  # the examples all migrate
    tools = ws / ".jp" / "mcp" / "tools"
    (ws / "dynamic.py").write_text(
        "import json, sys\n"
        "kind = 'success' if len(sys.argv) > 2 else 'error'\n"
        "print(json.dumps({'type': kind, 'content': 'x'}))\n"
    )
    (tools / "dynamic.toml").write_text(
        "[conversation.tools.dynamic]\ncommand = \"python3 dynamic.py '{{tool}}'\"\n"
    )
    (tools / "shell.toml").write_text('[conversation.tools.shell]\ncommand = "sh tool.sh"\n')
    code, out, _ = adapt(ws, "--unmigratable", "--check")
    assert code == 1
    assert "tool 'dynamic': needs the adapter: dynamic.py:3: the codemod refuses it" in out
    assert "tool 'shell': needs the adapter: 'sh' is not a Python file" in out
    assert "word_count" not in out


def test_unmigratable_judges_a_tool_with_the_siblings_it_imports(ws: Path) -> None:
    """As `jp-migrate tools DIR` migrates them: a tool reading another tool's result
    migrates with it; a tool whose helper module the codemod refuses needs the adapter."""
    tools = ws / ".jp" / "mcp" / "tools"
    (ws / "bump.py").write_text(
        "import json\n\n"
        "def run(part):\n"
        "    return {'type': 'success', 'content': f'bumped {part}'}\n\n"
        "if __name__ == '__main__':\n"
        "    print(json.dumps(run('minor')))\n"
    )
    (ws / "release.py").write_text(
        "import json\nimport bump\n\n"
        "result = bump.run('patch')\n"
        "if result['type'] == 'success':\n"
        "    print(json.dumps({'type': 'success', 'content': 'released: ' + result['content']}))\n"
    )
    (ws / "_helpers.py").write_text(
        "def ok(text, extra):\n    return {'type': 'success', **extra}\n"
    )
    (ws / "uses_helper.py").write_text(
        "import json\nfrom _helpers import ok\n\nprint(json.dumps(ok('done', {'content': 'x'})))\n"
    )
    for name in ("bump", "release", "uses_helper"):
        (tools / f"{name}.toml").write_text(
            f'[conversation.tools.{name}]\ncommand = "python3 {name}.py"\n'
        )
    code, out, _ = adapt(ws, "--unmigratable", "--check")
    assert code == 1
    assert "'release'" not in out and "'bump'" not in out, out
    assert (
        "tool 'uses_helper': needs the adapter: uses_helper.py imports _helpers: _helpers.py:2: "
        "the codemod refuses it" in out
    ), out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--tool", "nope"), "no tool named 'nope' with a command"),
        (("--server", "nope"), "no MCP server named 'nope'"),
        ((), "name what to adapt"),
    ],
)
def test_bad_usage_is_one_line(ws: Path, args: tuple[str, ...], needle: str) -> None:
    code, out, err = adapt(ws, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and needle in err and "Traceback" not in err


def test_an_invalid_config_is_one_line_and_nothing_is_written(ws: Path) -> None:
    broken = ws / ".jp" / "mcp" / "tools" / "broken.toml"
    broken.write_text("[conversation.tools.x\n")
    before = snapshot(ws)
    code, _, err = adapt(ws, "--tool", "word_count")
    assert code == 2 and "broken.toml: invalid TOML" in err and "Traceback" not in err
    assert snapshot(ws) == before


def test_a_symlinked_config_is_refused_never_written_through(ws: Path, tmp_path: Path) -> None:
    real = tmp_path / "elsewhere.toml"
    link = ws / ".jp" / "mcp" / "tools" / "word_count.toml"
    shutil.move(link, real)
    link.symlink_to(real)
    before = real.read_bytes()
    code, out, err = adapt(ws, "--tool", "word_count", "--tool", "delete_file")
    assert code == 2 and "word_count.toml: tool 'word_count': a symlink" in err, err
    assert "delete_file.toml: tool 'delete_file': adapted" in out  # the rest is done
    assert link.is_symlink() and real.read_bytes() == before


def test_undo_unmigratable_undoes_exactly_what_unmigratable_did(ws: Path) -> None:
    tools = ws / ".jp" / "mcp" / "tools"
    (tools / "shell.toml").write_text('[conversation.tools.shell]\ncommand = "sh tool.sh"\n')
    before = snapshot(ws)
    assert adapt(ws, "--unmigratable")[0] == 0
    assert adapt(ws, "--tool", "word_count")[0] == 0  # a migratable tool, adapted by name
    code, out, _ = adapt(ws, "--undo", "--unmigratable")
    assert code == 0
    assert out.splitlines() == [
        ".jp/mcp/tools/shell.toml: tool 'shell': restored: command = \"sh tool.sh\""
    ]
    assert adapt(ws, "--undo", "--tool", "word_count")[0] == 0
    assert snapshot(ws) == before
