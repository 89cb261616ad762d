"""One option vocabulary across `conversations`, `rollback`, `tools`, `check` and `verify`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from ci_support import legacy_workspace
from click.testing import CliRunner
from conftest import REPO, run_cli
from store_support import MESSAGES_ERA, copy_tree, legacy_events, snapshot, write_conversation

from jp_migrate.cli import cli

COMMANDS = ("conversations", "rollback", "tools", "check", "verify")
LEGACY_TOOL = 'import json\nprint(json.dumps({"type": "success", "content": "hello"}))\n'


def help_text(command: str) -> str:
    result = CliRunner().invoke(cli, [command, "--help"], terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def options_of(command: str) -> dict[str, str]:
    """`--name` → its placeholder ('' for a flag), as `--help` shows them."""
    found: dict[str, str] = {}
    for match in re.finditer(
        r"^\s+(?:-\w, )?(--[\w-]+)(?: ([A-Z][\w\[\]=|/.]*))?", help_text(command), re.MULTILINE
    ):
        found[match.group(1)] = match.group(2) or ""
    return found


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_quiet_and_the_shared_placeholders(command: str) -> None:
    options = options_of(command)
    assert options["--quiet"] == ""
    assert options["--report"] == "FORMAT[=FILE]"
    text = help_text(command)
    for old in ("PATHS", "DIRECTORY", "PATTERN", "INTEGER", "FLOAT", "TEXT"):
        assert old not in text, (command, old)


def test_the_same_option_takes_the_same_placeholder_everywhere() -> None:
    seen: dict[str, dict[str, str]] = {}
    for command in COMMANDS:
        for name, placeholder in options_of(command).items():
            seen.setdefault(name, {})[command] = placeholder
    for name, by_command in seen.items():
        assert len(set(by_command.values())) == 1, (name, by_command)
    assert seen["--exclude"] == {"tools": "GLOB", "check": "GLOB"}
    assert seen["--rule"] == {"conversations": "ID", "check": "ID"}
    assert seen["--rules"] == {"conversations": "DIR", "check": "DIR"}
    assert set(seen["--jobs"].values()) == {"N"}
    assert seen["--timeout"] == {"verify": "S"}
    assert seen["--cases"] == {"check": "FILE", "verify": "FILE"}
    assert "--exclude-archived" in seen and set(seen["--exclude-archived"]) == {
        "conversations",
        "check",
    }


@pytest.mark.parametrize("command", ("conversations", "rollback", "tools", "check"))
def test_path_is_optional_and_defaults_to_the_current_directory(command: str) -> None:
    text = help_text(command)
    assert re.search(rf"Usage: cli {command} \[OPTIONS\] \[PATH\]", text)
    assert "(default: .)" in " ".join(text.split())


def test_defaults_are_shown() -> None:
    assert "[default: auto]" in help_text("conversations")
    assert "[default: 1" in help_text("tools")
    assert "[default: .]" in help_text("verify")


def test_commands_run_on_the_current_directory_without_a_path(tmp_path: Path) -> None:
    workspace = legacy_workspace(tmp_path / "ws")
    (workspace / "tool.py").write_text(LEGACY_TOOL)
    assert run_cli("conversations", "--check", cwd=workspace).returncode == 1
    assert run_cli("tools", "--check", cwd=workspace).returncode == 1
    migrated = run_cli("conversations", cwd=workspace)
    assert migrated.returncode == 0, migrated.stderr
    assert "(undo: jp-migrate rollback .)" in migrated.stdout
    assert run_cli("conversations", "--check", cwd=workspace).returncode == 0
    undone = run_cli("rollback", cwd=workspace)
    assert undone.returncode == 0, undone.stderr
    assert run_cli("conversations", "--check", cwd=workspace).returncode == 1


def test_rule_is_an_id_and_rules_a_directory_on_conversations_and_check(tmp_path: Path) -> None:
    workspace = legacy_workspace(tmp_path / "ws")
    rules = tmp_path / "my-rules"
    rules.mkdir()
    (rules / "store-file-resource.toml").write_text(
        (REPO / "rules" / "store-file-resource.toml").read_text()
    )
    for command in ("conversations", "check"):
        extra = ["--check"] if command == "conversations" else ["--no-tools"]
        as_dir = run_cli(command, str(workspace), *extra, "--rule", str(rules))
        assert as_dir.returncode == 2, (command, as_dir.stderr)
        assert f"for the rules in a directory use --rules {rules}" in as_dir.stderr
        for flag, value in (("--rules", str(rules)), ("--rule", "store-file-resource")):
            result = run_cli(command, str(workspace), *extra, flag, value, "--report", "json")
            assert result.returncode == 1, (command, flag, result.stderr)
            applied = {r for f in json.loads(result.stdout)["store"] for r in f["rules"]}
            assert "store-file-resource" in applied, (command, flag)


def test_check_can_leave_archived_conversations_out(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    write_conversation(workspace / ".jp", "17000000001-a", legacy_events(), archived=True)
    assert run_cli("check", str(workspace), "--no-tools").returncode == 1
    result = run_cli("check", str(workspace), "--no-tools", "--exclude-archived")
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_integrity_is_the_new_name_and_verify_still_works_hidden(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    assert "--check-integrity" in help_text("conversations")
    assert "--verify" not in help_text("conversations")
    for flag in ("--check-integrity", "--verify"):
        result = run_cli("conversations", str(root), flag)
        assert result.returncode == 1, result.stderr  # a legacy event left is a problem
        assert "1 tool_call_response event not migrated" in result.stderr


def test_tools_dry_run_writes_nothing_and_exits_0(tmp_path: Path) -> None:
    source = tmp_path / "tool.py"
    source.write_text(LEGACY_TOOL)
    result = run_cli("tools", str(source), "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "1 file: 1 would be rewritten" in result.stderr
    assert source.read_text() == LEGACY_TOOL
    assert run_cli("tools", str(source), "--diff").returncode == 1
    assert run_cli("tools", str(source), "--diff", "--dry-run").returncode == 0
    assert source.read_text() == LEGACY_TOOL


def test_quiet_prints_only_what_needs_attention(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    write_conversation(root, "17000000002-b", "{not json")
    before = snapshot(root)
    checked = run_cli("conversations", str(root), "--check", "--quiet")
    assert checked.returncode == 2
    assert checked.stdout == ""
    assert checked.stderr.startswith("error: ") and "17000000002-b" in checked.stderr
    assert len(checked.stderr.splitlines()) == 1
    assert snapshot(root) == before
    written = run_cli("conversations", str(root), "-q")
    assert written.stdout == "" and written.returncode == 2
    undone = run_cli("rollback", str(root), "-q")
    assert (undone.returncode, undone.stdout, undone.stderr) == (0, "", "")
    source = tmp_path / "tool.py"
    source.write_text(LEGACY_TOOL)
    tools = run_cli("tools", str(source), "--check", "-q")
    assert (tools.returncode, tools.stdout, tools.stderr) == (1, "", "")


def test_check_quiet_names_what_would_change_one_line_each(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    write_conversation(workspace / ".jp", "17000000001-a", legacy_events())
    result = run_cli("check", str(workspace), "--no-tools", "--quiet", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        "would migrate: ws/.jp/conversations/17000000001-a/events.json"
    ]


def whole_tree(root: Path) -> dict[str, tuple[str, bytes, int]]:
    """Every entry under root, run records and lock files included: kind, bytes, mtime."""
    out: dict[str, tuple[str, bytes, int]] = {}
    for path in sorted(root.rglob("*")):
        stat = path.lstat()
        if path.is_symlink():
            out[str(path)] = ("link", str(path.readlink()).encode(), stat.st_mtime_ns)
        elif path.is_dir():
            out[str(path)] = ("dir", b"", 0)
        else:
            out[str(path)] = ("file", path.read_bytes(), stat.st_mtime_ns)
    return out


def test_rollback_dry_run_and_diff_show_the_restore_and_write_nothing(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    assert run_cli("conversations", str(root)).returncode == 0
    before = whole_tree(tmp_path)
    dry = run_cli("rollback", str(root), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.splitlines()[0].startswith("would restore from run ")
    assert dry.stdout.splitlines()[-1].startswith("would roll back run ")
    assert whole_tree(tmp_path) == before
    shown = run_cli("rollback", str(root), "--diff")
    assert shown.returncode == 1, shown.stderr  # as --check: something would be restored
    assert "@@ events[2] tool_call_response call_1 @@" in shown.stdout
    assert '+  "content": "Check succeeded.",' in shown.stdout  # the legacy string comes back
    assert run_cli("rollback", str(root), "--diff", "--dry-run").returncode == 0
    assert run_cli("rollback", str(root), "--check").returncode == 1
    assert whole_tree(tmp_path) == before
    done = run_cli("rollback", str(root))
    assert done.returncode == 0 and done.stdout.splitlines()[-1].startswith("rolled back run ")
    after = run_cli("rollback", str(root), "--dry-run")
    assert (after.returncode, after.stdout) == (0, "nothing to roll back\n")


def test_rollback_downgrade_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "s"
    path = write_conversation(root, "17000000001-a", legacy_events())
    assert run_cli("conversations", str(root), "--no-backup").returncode == 0
    migrated = path.read_bytes()
    before = whole_tree(tmp_path)
    result = run_cli("rollback", str(root), "--downgrade", "--diff", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert "would downgrade to legacy responses (no backup)" in result.stdout
    assert "@@ events[2] tool_call_response call_1 @@" in result.stdout
    assert whole_tree(tmp_path) == before and path.read_bytes() == migrated


INTERRUPT_AFTER = """
import sys
from jp_migrate.store import api
real = api.run_jobs

def interrupted(*args, **kwargs):
    for count, results in enumerate(real(*args, **kwargs), 1):
        yield results
        if count == {after}:
            raise KeyboardInterrupt  # as Ctrl-C would, between two conversations

api.run_jobs = interrupted
from jp_migrate.cli import main
sys.argv = ["jp-migrate", *sys.argv[1:]]
main()
"""


def interrupted_run(*args: str, after: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    import sys

    return subprocess.run(
        [sys.executable, "-c", INTERRUPT_AFTER.replace("{after}", str(after)), *args],
        capture_output=True, text=True, cwd=cwd, timeout=300, check=False,
    )  # fmt: skip


def test_ctrl_c_says_what_was_written_and_how_to_undo_it(tmp_path: Path) -> None:
    root = tmp_path / "s"
    paths = [
        write_conversation(root, f"170000000{n:02d}-c", legacy_events(f"call_{n}"))
        for n in range(40)
    ]
    original = {p: p.read_bytes() for p in paths}
    result = interrupted_run("conversations", "s", after=1, cwd=tmp_path)
    assert result.returncode == 130
    assert "Traceback" not in result.stderr and "Aborted." not in result.stderr
    changed = sum(p.read_bytes() != original[p] for p in paths)
    assert 1 <= changed < 40  # the run stopped part of the way through
    message = result.stderr.strip().splitlines()[-1]
    assert re.fullmatch(
        rf"interrupted: {changed} of 40 conversations migrated, run recorded in "
        rf"{re.escape(str(root.resolve()))}/\.jp-migrate/runs/\S+; undo: jp-migrate rollback s",
        message,
    ), message
    undone = run_cli("rollback", "s", cwd=tmp_path)
    assert undone.returncode == 0, undone.stderr
    assert {p: p.read_bytes() for p in paths} == original


def test_ctrl_c_in_a_dry_run_says_nothing_was_written(tmp_path: Path) -> None:
    root = tmp_path / "s"
    for n in range(3):
        write_conversation(root, f"170000000{n:02d}-c", legacy_events(f"call_{n}"))
    before = whole_tree(tmp_path)
    result = interrupted_run("conversations", "s", "--check", after=1, cwd=tmp_path)
    assert result.returncode == 130
    assert result.stderr.strip().splitlines()[-1] == "interrupted: nothing was written"
    assert whole_tree(tmp_path) == before


def test_integrity_summary_names_what_makes_the_exit_code(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    assert run_cli("conversations", str(root)).returncode == 0
    clean = run_cli("conversations", str(root), "--check-integrity")
    assert (clean.returncode, clean.stdout) == (0, "checked 1 file: 0 with problems\n")
    write_conversation(root, "17000000002-b", "{not json")
    broken = run_cli("conversations", str(root), "--check-integrity")
    assert broken.returncode == 2  # a file that could not be read, not a problem found
    assert broken.stdout == "checked 1 of 2 files: 0 with problems, 1 could not be read\n"
    old = copy_tree(MESSAGES_ERA, tmp_path / "old")  # a real store of JP's pre-2025 layout
    skipped = run_cli("conversations", str(old), "--check-integrity")
    assert skipped.returncode == 2
    assert skipped.stdout == "checked 0 of 1 file: 0 with problems, 1 skipped\n"
    assert "unsupported layout" in skipped.stderr


def test_per_file_lines_and_summaries_in_the_right_number(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    two = legacy_events("call_1") + legacy_events("call_2")[1:]
    write_conversation(root, "17000000002-b", two)
    result = run_cli("conversations", "s", "--dry-run", cwd=tmp_path)
    assert result.stdout.splitlines() == [
        "would migrate s/conversations/17000000001-a/events.json (1 event)",
        "would migrate s/conversations/17000000002-b/events.json (2 events)",
        "2 files: 2 would change (3 events), 0 unchanged, 0 errors, 0 skipped",
    ]
    source = tmp_path / "tool.py"
    source.write_text(LEGACY_TOOL)
    tools = run_cli("tools", str(source), "--check")
    assert (
        "1 file: 1 would be rewritten, 0 with unhandled sites, 0 errors, 0 skipped" in tools.stderr
    )


def test_a_stores_conversations_directory_is_accepted_as_path(
    tmp_path: Path, jp_data_home: Path
) -> None:
    workspace = legacy_workspace(tmp_path / "ws")
    conversations = workspace / ".jp" / "conversations"
    before = whole_tree(workspace)
    checked = run_cli("conversations", ".jp/conversations", "--check", cwd=workspace)
    assert checked.returncode == 1, checked.stderr
    assert checked.stdout.splitlines()[0].startswith("would migrate .jp/conversations/17")
    gate = run_cli("check", str(conversations), "--no-tools")
    assert gate.returncode == 1, gate.stdout + gate.stderr
    assert whole_tree(workspace) == before
    migrated = run_cli("conversations", ".", cwd=conversations)  # from inside it
    assert migrated.returncode == 0, migrated.stderr
    assert (workspace / ".jp" / ".jp-migrate").is_dir()  # records beside conversations/
    assert not (conversations / ".jp-migrate").exists()
    assert run_cli("conversations", str(conversations), "--check").returncode == 0
    assert run_cli("rollback", str(conversations)).returncode == 0
    assert run_cli("conversations", str(conversations), "--check").returncode == 1
    # a user-local store's conversations/ (JP's <data>/jp/workspace/<name>-<id>/)
    local = jp_data_home / "workspace" / "ws-a1b2c3" / "conversations"
    write_conversation(local.parent, "17000000001-a", legacy_events())
    result = run_cli("conversations", str(local))
    assert result.returncode == 0, result.stderr
    assert (local.parent / ".jp-migrate").is_dir()
    assert run_cli("rollback", str(local), "--dry-run").returncode == 0


def test_verify_quiet_prints_only_mismatches(tmp_path: Path) -> None:
    import sys

    (tmp_path / "before.py").write_text(
        'import json\nprint(json.dumps({"type": "success", "content": "hi"}))\n'
    )
    (tmp_path / "after.py").write_text(
        'import json\nprint(json.dumps({"content": [{"type": "text", "text": "hi"}]}))\n'
    )
    (tmp_path / "wrong.py").write_text(
        'import json\nprint(json.dumps({"content": [{"type": "text", "text": "bye"}]}))\n'
    )
    (tmp_path / "cases.jsonl").write_text('{"arguments": {}}\n{"arguments": {"x": 1}}\n')
    base = ["verify", "--cases", "cases.jsonl", "--before", f"{sys.executable} before.py"]
    loud = run_cli(*base, "--after", f"{sys.executable} after.py", cwd=tmp_path)
    assert loud.returncode == 0 and "2 cases: 2 match" in loud.stdout
    quiet = run_cli(*base, "--after", f"{sys.executable} after.py", "-q", cwd=tmp_path)
    assert (quiet.returncode, quiet.stdout) == (0, "")
    wrong = run_cli(*base, "--after", f"{sys.executable} wrong.py", "-q", cwd=tmp_path)
    assert wrong.returncode == 1
    assert wrong.stdout.count("mismatch") == 2 and "before: " in wrong.stdout
    assert "after: " in wrong.stdout and "cases:" not in wrong.stdout
