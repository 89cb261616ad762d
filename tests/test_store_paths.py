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


def test_a_path_that_names_no_store_is_an_error_and_the_others_are_done(tmp_path: Path) -> None:
    root = tmp_path / "store"
    good = write_conversation(root, "17000000001-a", legacy_events())
    report = tmp_path / "r.json"
    missing = tmp_path / "typo"
    result = run_cli("conversations", str(root), str(missing), "--report", f"json={report}")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [f"error: {missing}: no such file or directory"]
    assert isinstance(responses(good)[0]["content"], list)
    listed = {f["path"]: f["status"] for f in json.loads(report.read_text())["store"]}
    assert listed[str(missing)] == "error" and listed[str(good)] == "migrated"
    back = run_cli("rollback", str(root), str(missing))
    assert back.returncode == 2 and f"error: {missing}: no such file" in back.stderr
    assert isinstance(responses(good)[0]["content"], str)  # rolled back all the same


def test_archive_named_as_path_is_every_archived_conversation(tmp_path: Path) -> None:
    root = tmp_path / "store"
    live = write_conversation(root, "17000000001-a", legacy_events())
    old = [
        write_conversation(root, f"1700000000{i}-old", legacy_events(), archived=True)
        for i in (2, 3)
    ]
    result = run_cli("conversations", str(root / "conversations" / ".archive"))
    assert result.returncode == 0, result.stderr
    assert all(isinstance(responses(p)[0]["content"], list) for p in old)
    assert isinstance(responses(live)[0]["content"], str)


def test_rolling_back_one_conversation_finds_the_run_that_changed_it(tmp_path: Path) -> None:
    """An older run changed it; the newest run changed another: the older one is rolled back."""
    root = tmp_path / "store"
    first = write_conversation(root, "17000000001-a", legacy_events())
    second = write_conversation(root, "17000000002-b", legacy_events())
    original = first.read_bytes()
    assert run_cli("conversations", str(first.parent)).returncode == 0
    assert run_cli("conversations", str(second.parent)).returncode == 0
    result = run_cli("rollback", str(first.parent))
    assert result.returncode == 0, result.stderr
    assert first.read_bytes() == original
    assert isinstance(responses(second)[0]["content"], list)  # the newest run is left


def test_an_events_json_named_as_path_points_to_its_directory(tmp_path: Path) -> None:
    root = tmp_path / "s"
    path = write_conversation(root, "17000000001-a", legacy_events())
    for command in ("conversations", "rollback"):
        result = run_cli(command, str(path))
        assert result.returncode == 2, result
        assert result.stderr.splitlines() == [
            f"error: {path}: a file: name the conversation directory that holds it, {path.parent}"
        ], (command, result.stderr)
    assert isinstance(responses(path)[0]["content"], str)
