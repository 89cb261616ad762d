"""Rollback (Alembic's downgrade to our upgrade), run records, and --verify against backups."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from store_support import b64, corpus_store, legacy_events, responses, snapshot, write_conversation


def _runs(root: Path) -> list[Path]:
    runs = root / ".jp-migrate" / "runs"
    return sorted(runs.iterdir()) if runs.is_dir() else []


def _migrated(
    root: Path, name: str, events: list[Any], *flags: str
) -> tuple[Path, bytes, list[Path]]:
    """A conversation written into `root`, then `root` migrated (with `flags`): its
    events.json, the bytes it held before, and the run directories there now."""
    path = write_conversation(root, name, events)
    original = path.read_bytes()
    result = run_cli("conversations", str(root), *flags)
    assert result.returncode == 0, result.stderr
    return path, original, _runs(root)


def test_state_dir_is_beside_conversations_and_ignored_by_git(tmp_path: Path) -> None:
    store = corpus_store(tmp_path)
    assert run_cli("conversations", str(store)).returncode == 0
    state = store / ".jp-migrate"
    assert (state / ".gitignore").read_text() == "*\n"
    assert not list(
        (store / "conversations").glob("**/.jp-migrate*")
    )  # nothing of ours inside conversations/
    (run,) = _runs(store)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["schema"] == "jp-migrate.store-run.v1"
    for record in manifest["files"]:
        assert set(record) >= {"path", "sha256_before", "sha256_after", "rules", "backup"}
        assert record["rules"] == ["store-faithful-text"]
        backup = run / record["backup"]
        assert record["sha256_before"] == hashlib.sha256(backup.read_bytes()).hexdigest()
        current = (store / record["path"]).read_bytes()
        assert record["sha256_after"] == hashlib.sha256(current).hexdigest()
        original = (store / record["path"]).stat()
        assert backup.stat().st_ino != original.st_ino  # the original inode is the backup now
        assert backup.stat().st_nlink == 1


def test_a_run_that_changes_nothing_leaves_no_record(tmp_path: Path) -> None:
    root = tmp_path / "store"
    write_conversation(root, "17000000001-a", [{"type": "turn_start", "timestamp": "t"}])
    assert run_cli("conversations", str(root)).returncode == 0
    assert _runs(root) == []


def test_bare_rollback_undoes_the_most_recent_run_that_changed_files(tmp_path: Path) -> None:
    root = tmp_path / "store"
    a = write_conversation(root, "17000000001-a", legacy_events())
    original_a = a.read_bytes()
    assert run_cli("conversations", str(root)).returncode == 0
    b = write_conversation(root, "17000000002-b", legacy_events("call_2"))
    original_b = b.read_bytes()
    assert run_cli("conversations", str(root)).returncode == 0  # second run: only b changes
    assert run_cli("conversations", str(root)).returncode == 0  # third run: nothing, no record
    _first, second = _runs(root)

    result = run_cli("rollback", str(root))
    assert result.returncode == 0, result.stderr
    assert b.read_bytes() == original_b
    assert isinstance(responses(a)[0]["content"], list)  # the first run is still applied
    assert (second / "rolled-back").exists()

    again = run_cli("rollback", str(root))  # the next bare rollback takes the run before
    assert again.returncode == 0
    assert a.read_bytes() == original_a

    redo = run_cli("rollback", str(root), "--run", second.name)  # --run picks one explicitly
    assert redo.returncode == 0, (
        redo.stderr
    )  # its file is as before that run already: nothing to do
    assert b.read_bytes() == original_b


def test_rollback_refuses_a_file_changed_since_and_force_overrides(tmp_path: Path) -> None:
    root = tmp_path / "store"
    a = write_conversation(root, "17000000001-a", legacy_events())
    b = write_conversation(root, "17000000002-b", legacy_events("call_2"))
    original_a, original_b = a.read_bytes(), b.read_bytes()
    assert run_cli("conversations", str(root)).returncode == 0
    edited = a.read_text().replace('"done"', '"done, and jp wrote more"')
    a.write_text(edited)

    refused = run_cli("rollback", str(root))
    assert refused.returncode == 2
    (line,) = refused.stderr.strip().splitlines()
    assert "17000000001-a/events.json" in line and "changed since" in line and "--force" in line
    assert a.read_text() == edited  # refused: untouched
    assert b.read_bytes() == original_b  # the others are restored

    forced = run_cli("rollback", str(root), "--force")
    assert forced.returncode == 0, forced.stderr
    assert a.read_bytes() == original_a


def test_rollback_of_an_unknown_run_is_a_usage_error(tmp_path: Path) -> None:
    root = tmp_path / "store"
    write_conversation(root, "17000000001-a", legacy_events())
    result = run_cli("rollback", str(root), "--run", "nope")
    assert result.returncode == 2
    assert "nope" in result.stderr


def test_downgrade_converts_back_when_there_is_no_backup(tmp_path: Path) -> None:
    root = tmp_path / "store"
    events = legacy_events(text="plain ✓", encode=False)
    a, original, (run,) = _migrated(root, "17000000001-a", events, "--no-backup")
    assert not (run / "backup").exists()

    without = run_cli("rollback", str(root))
    assert without.returncode == 2
    assert "--downgrade" in without.stderr

    result = run_cli("rollback", str(root), "--downgrade")
    assert result.returncode == 0, result.stderr
    assert a.read_bytes() == original  # faithful, canonical: downgrade gives the bytes back


@pytest.mark.parametrize("number", ["36893488147419103232", "-9223372036854775809"])
def test_an_integer_beyond_64_bits_in_a_rewritten_event_keeps_its_digits(
    tmp_path: Path, number: str
) -> None:
    """orjson reads one as a double; migrate and downgrade must still write it as written."""
    root = tmp_path / "store"
    events = legacy_events()
    events[2]["metadata"] = {"n": int(number), "m": [int(number)], "f": 1.5}
    a, original, _ = _migrated(root, "17000000001-a", events, "--no-backup")
    migrated = a.read_text()
    assert f'"n": {number},' in migrated and f"      {number}\n" in migrated
    assert json.loads(migrated)[2]["content"] == [{"type": "text", "text": b64("Check succeeded.")}]
    result = run_cli("rollback", str(root), "--downgrade")
    assert result.returncode == 0, result.stderr
    assert a.read_bytes() == original


def test_downgrade_refuses_to_drop_binary_content_unless_forced(tmp_path: Path) -> None:
    """No backup, no undo: an image or a blob the legacy string cannot hold is not thrown away."""
    root = tmp_path / "store"
    migrated = legacy_events()
    migrated[2]["content"] = [
        {"type": "text", "text": b64("the screenshot")},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    ]
    plain = write_conversation(root, "17000000001-a", legacy_events())
    binary = write_conversation(root, "17000000002-b", migrated)
    assert run_cli("conversations", str(plain.parent), "--no-backup").returncode == 0
    kept = binary.read_bytes()
    result = run_cli("rollback", str(root), "--downgrade")
    assert result.returncode == 2
    assert f"error: {binary}: [2]: a downgrade would drop an image block" in result.stderr
    assert "nothing to roll back" not in result.stdout
    assert binary.read_bytes() == kept
    assert responses(plain)[0]["content"] == b64("Check succeeded.")  # the rest downgraded
    forced = run_cli("rollback", str(root), "--downgrade", "--force")
    assert forced.returncode == 0, forced.stderr
    assert responses(binary)[0]["content"] == b64("the screenshot")


def test_downgrade_without_any_run(tmp_path: Path) -> None:
    root = tmp_path / "store"
    migrated = legacy_events()
    migrated[2]["content"] = [{"type": "text", "text": b64("Check succeeded.")}]
    a = write_conversation(root, "17000000001-a", migrated)
    assert run_cli("rollback", str(root), "--downgrade").returncode == 0
    assert responses(a)[0]["content"] == b64("Check succeeded.")


def test_verify_compares_with_the_backup_and_reports_a_mismatch(tmp_path: Path) -> None:
    store = corpus_store(tmp_path)
    assert run_cli("conversations", str(store)).returncode == 0
    path = next(store.glob("conversations/17673061097-*/events.json"))
    before = snapshot(store)
    tampered = path.read_text().replace(
        b64("Check succeeded. No warnings or errors found."), b64("Check failed.")
    )
    path.write_text(tampered)
    result = run_cli("conversations", str(store), "--verify")
    assert result.returncode == 1
    assert "17673061097" in result.stderr and "renders differently" in result.stderr
    assert (
        snapshot(store)[path.relative_to(store).as_posix()][0]
        != before[path.relative_to(store).as_posix()][0]
    )


def test_verify_reports_legacy_events_and_unparsable_files(tmp_path: Path) -> None:
    root = tmp_path / "store"
    write_conversation(root, "17000000001-a", legacy_events())
    result = run_cli("conversations", str(root), "--verify")
    assert result.returncode == 1
    assert "not migrated" in result.stderr
    write_conversation(root, "17000000002-b", "[\n")
    broken = run_cli("conversations", str(root), "--verify")
    assert broken.returncode == 2
    assert "17000000002-b/events.json" in broken.stderr and "invalid JSON" in broken.stderr


def test_verify_warns_about_events_that_would_not_survive_a_downgrade(tmp_path: Path) -> None:
    root = tmp_path / "store"
    events = legacy_events()
    events[2]["content"] = [
        {"type": "text", "text": b64("one")},
        {"type": "text", "text": b64("two")},
    ]
    write_conversation(root, "17000000001-a", events)
    result = run_cli("conversations", str(root), "--verify")
    assert result.returncode == 0  # a warning, not a problem
    assert "would not survive a downgrade" in result.stderr


def test_an_interrupted_run_is_rolled_back_from_its_journal(tmp_path: Path) -> None:
    root = tmp_path / "store"
    a, original, (run,) = _migrated(root, "17000000001-a", legacy_events())
    (run / "manifest.json").unlink()  # as if the run was killed before writing it
    assert (run / "journal.jsonl").read_text().count("\n") == 1
    result = run_cli("rollback", str(root))
    assert result.returncode == 0, result.stderr
    assert a.read_bytes() == original


def test_no_backup_run_leaves_no_copies_behind(tmp_path: Path) -> None:
    root = tmp_path / "store"
    for n in range(3):
        write_conversation(root, f"1700000000{n}-c", legacy_events(f"call_{n}"))
    assert run_cli("conversations", str(root), "--no-backup").returncode == 0
    assert sorted(os.listdir(root / ".jp-migrate")) == [".gitignore", "runs"]
    (run,) = _runs(root)
    assert not (run / "backup").exists()


def test_rollback_finds_a_conversation_archived_since_and_names_one_that_is_gone(
    tmp_path: Path,
) -> None:
    root = tmp_path / "store"
    moved = write_conversation(root, "17000000001-moved", legacy_events())
    gone = write_conversation(root, "17000000002-gone", legacy_events("call_2"))
    original = moved.read_bytes()
    assert run_cli("conversations", str(root)).returncode == 0
    archive = root / "conversations" / ".archive"
    archive.mkdir()
    moved.parent.rename(archive / moved.parent.name)  # `jp conversation archive`
    shutil.rmtree(gone.parent)

    result = run_cli("rollback", str(root))

    assert result.returncode == 2
    assert (archive / moved.parent.name / "events.json").read_bytes() == original
    assert "17000000002-gone/events.json: missing: run " in result.stderr
    assert "it is gone now" in result.stderr


def test_downgrade_leaves_files_an_older_run_backed_up_to_that_run(tmp_path: Path) -> None:
    root = tmp_path / "store"
    first, original, (older,) = _migrated(root, "17000000001-first", legacy_events())
    second = write_conversation(root, "17000000002-second", legacy_events("call_2"))
    assert run_cli("conversations", str(root)).returncode == 0

    result = run_cli("rollback", str(root), "--downgrade")

    assert result.returncode == 2
    assert f"run {older.name} holds its backup: not downgraded" in result.stderr
    assert all(isinstance(r["content"], list) for r in responses(first))  # left as migrated
    assert all(isinstance(r["content"], str) for r in responses(second))  # its run restored it
    assert run_cli("rollback", str(root), "--run", older.name).returncode == 0
    assert first.read_bytes() == original


def test_verify_accepts_events_jp_appended_since_the_migration(tmp_path: Path) -> None:
    root = tmp_path / "store"
    path = write_conversation(root, "17000000001-a", legacy_events())
    assert run_cli("conversations", str(root)).returncode == 0
    events = json.loads(path.read_text())
    events += [
        {"type": "tool_call_request", "id": "call_9", "name": "ls", "arguments": {}},
        {
            "type": "tool_call_response",
            "id": "call_9",
            "content": [{"type": "text", "text": b64("a")}],
            "is_error": False,
        },
    ]
    path.write_text(json.dumps(events, indent=2) + "\n")
    assert run_cli("conversations", str(root), "--verify").returncode == 0
    del events[:3]  # fewer events than the backup: something was lost
    path.write_text(json.dumps(events, indent=2) + "\n")
    lost = run_cli("conversations", str(root), "--verify")
    assert lost.returncode == 1 and "but the backup holds" in lost.stderr


def test_verify_reports_an_invalid_base64_blob(tmp_path: Path) -> None:
    root = tmp_path / "store"
    events = legacy_events()
    events[2]["content"] = [
        {"type": "resource", "resource": {"uri": "file:///x", "blob": "not base64!!"}}
    ]
    write_conversation(root, "17000000001-a", events)
    result = run_cli("conversations", str(root), "--verify")
    assert result.returncode == 1
    assert "[2].content[0].resource.blob: invalid base64" in result.stderr


def test_damaged_run_records(tmp_path: Path) -> None:
    root = tmp_path / "store"
    a, original, (run,) = _migrated(root, "17000000001-a", legacy_events())
    (run / "manifest.json").write_text("[]")  # JSON, but no run record
    refused = run_cli("rollback", str(root))
    assert refused.returncode == 2 and "unreadable run record" in refused.stderr
    assert "Traceback" not in refused.stderr and a.read_bytes() != original
    (run / "manifest.json").unlink()  # killed before the manifest, and inside a journal write
    with (run / "journal.jsonl").open("a") as journal:
        journal.write('{"path": "conversations/17000000002-b/ev')
    result = run_cli("rollback", str(root))
    assert result.returncode == 0, result.stderr
    assert a.read_bytes() == original


def test_a_deleted_backup_is_named_missing_not_never_made(tmp_path: Path) -> None:
    root = tmp_path / "store"
    a = write_conversation(root, "17000000001-a", legacy_events())
    assert run_cli("conversations", str(root)).returncode == 0
    (run,) = _runs(root)
    shutil.rmtree(run / "backup")
    migrated = a.read_bytes()
    result = run_cli("rollback", str(root))
    assert result.returncode == 2
    assert "the backup run" in result.stderr and "is missing" in result.stderr
    assert "kept no backup" not in result.stderr and "nothing to roll back" not in result.stdout
    assert a.read_bytes() == migrated
