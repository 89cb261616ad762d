"""PATH spelt in any way names the same store: `.`, `..`, relative names, two spellings at once."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from store_support import legacy_events, responses, write_conversation

FIRST = "17000000001-first"
SECOND = "17000000002-second"


def _workspace(tmp_path: Path) -> tuple[Path, Path, Path]:
    storage = tmp_path / "ws" / ".jp"
    first = write_conversation(storage, FIRST, legacy_events())
    second = write_conversation(storage, SECOND, legacy_events(text="second"))
    return storage, first, second


def test_a_conversation_directory_named_relatively(tmp_path: Path) -> None:
    storage, first, second = _workspace(tmp_path)
    inside = run_cli("conversations", ".", "--report", "json", cwd=first.parent)
    assert inside.returncode == 0, inside.stderr
    (file,) = json.loads(inside.stdout)["store"]
    assert file["path"] == "../../conversations/17000000001-first/events.json"
    assert isinstance(responses(first)[0]["content"], list)
    assert not isinstance(responses(second)[0]["content"], list)  # only the one named
    beside = run_cli("conversations", SECOND, cwd=storage / "conversations")
    assert beside.returncode == 0, beside.stderr
    assert isinstance(responses(second)[0]["content"], list)


def test_one_store_named_twice_has_one_complete_run_record(tmp_path: Path) -> None:
    storage, first, second = _workspace(tmp_path)
    before = {path: path.read_bytes() for path in (first, second)}
    workspace = storage.parent
    done = run_cli("conversations", str(first.parent), ".", "--exclude-user-local", cwd=workspace)
    assert done.returncode == 0, done.stderr
    (run,) = (storage / ".jp-migrate" / "runs").iterdir()
    manifest = json.loads((run / "manifest.json").read_text("utf-8"))
    assert sorted(f["path"] for f in manifest["files"]) == [
        f"conversations/{FIRST}/events.json",
        f"conversations/{SECOND}/events.json",
    ]
    assert run_cli("rollback", ".", cwd=workspace).returncode == 0
    assert {path: path.read_bytes() for path in before} == before


def test_a_storage_root_named_dot_knows_its_workspace(tmp_path: Path) -> None:
    """`.` inside `.jp/` is the same store as the workspace: file URIs for the resource rule."""
    storage = tmp_path / "ws" / ".jp"
    storage.mkdir(parents=True)
    (tmp_path / "ws" / "notes.md").write_text("# notes\n", "utf-8")
    events = legacy_events()
    events[1]["name"] = "fs_read_file"
    events[1]["arguments"] = {"path": "notes.md"}
    events[2]["content"] = "```md\n# notes\n```"
    write_conversation(storage, FIRST, events)
    named = {
        spelling: run_cli(
            "conversations",
            spelling,
            "--rule",
            "store-file-resource",
            "--dry-run",
            "--diff",
            cwd=cwd,
        )
        for spelling, cwd in ((".", storage), (".jp", storage.parent))
    }
    assert named["."].returncode == named[".jp"].returncode == 0
    assert "file://" in named[".jp"].stdout
    assert named["."].stdout.count("file://") == named[".jp"].stdout.count("file://")


def test_dot_dot_after_a_symlink_is_the_link_target_s_parent(tmp_path: Path) -> None:
    """`link/..` is where the system says, not the text cut short: another store here."""
    here, _, _ = _workspace(tmp_path)
    there = tmp_path / "real" / "ws"
    elsewhere = write_conversation(there / ".jp", FIRST, legacy_events(text="there"))
    (there / "sub").mkdir()
    (here.parent / "link").symlink_to(there / "sub")
    done = run_cli("conversations", "link/..", cwd=here.parent)
    assert done.returncode == 0, done.stderr
    assert isinstance(responses(elsewhere)[0]["content"], list)
    assert (there / ".jp" / ".jp-migrate").is_dir() and not (here / ".jp-migrate").exists()


def test_an_archived_conversation_named_relatively(tmp_path: Path) -> None:
    root = tmp_path / "ws" / ".jp"
    archived = write_conversation(root, FIRST, legacy_events(), archived=True)
    done = run_cli("conversations", ".", cwd=archived.parent)
    assert done.returncode == 0, done.stderr
    assert isinstance(responses(archived)[0]["content"], list)
    back = run_cli("rollback", ".", cwd=archived.parent)
    assert back.returncode == 0 and "nothing to roll back" not in back.stdout + back.stderr
    assert not isinstance(responses(archived)[0]["content"], list)
