"""A hostile store: links planted where jp-migrate writes, forged run records, odd names.

Each test keeps an `outside` directory beside the store, snapshots it, attacks, and
asserts that nothing outside the store changed and the rest of the store was migrated.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from conftest import run_cli
from store_support import legacy_events, responses, snapshot, write_conversation

GOOD = "17000000001-good"
OTHER = "17000000002-other"


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("do not touch\n")
    return outside


def _tree(path: Path) -> dict[str, Any]:
    """Every entry under `path`, links included (as their targets' names), with contents."""
    out: dict[str, Any] = {}
    for entry in sorted(path.rglob("*")):
        rel = entry.relative_to(path).as_posix()
        if entry.is_symlink():
            out[rel] = ("link", os.readlink(entry))
        elif entry.is_file():
            out[rel] = ("file", entry.read_bytes())
        else:
            out[rel] = ("dir",)
    return out


def _store(tmp_path: Path) -> Path:
    root = tmp_path / "store"
    write_conversation(root, GOOD, legacy_events())
    write_conversation(root, OTHER, legacy_events())
    return root


def _migrated(path: Path) -> bool:
    return isinstance(responses(path)[0]["content"], list)


def _one_run(root: Path) -> Path:
    (run,) = sorted((root / ".jp-migrate" / "runs").iterdir())
    return run


def test_a_link_planted_as_the_temporary_is_refused_not_written_through(tmp_path: Path) -> None:
    """The one link policy: a link where jp-migrate writes is refused, neither followed nor
    replaced; that conversation is left as it is, one line naming the link."""
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    before = _tree(outside)
    events = root / "conversations" / GOOD / "events.json"
    original = events.read_bytes()
    temporary = events.parent / ".events.json.jp-migrate.partial"
    temporary.symlink_to(outside / "precious.txt")
    result = run_cli("conversations", str(root))
    assert result.returncode == 2 and "a symlink where jp-migrate writes" in result.stderr
    assert _tree(outside) == before
    assert events.read_bytes() == original and temporary.is_symlink()


def test_rollback_downgrade_never_writes_through_a_planted_temporary(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    assert run_cli("conversations", str(root), "--no-backup").returncode == 0
    events = root / "conversations" / GOOD / "events.json"
    (events.parent / ".events.json.jp-migrate.partial").symlink_to(outside / "precious.txt")
    before = _tree(outside)
    migrated = events.read_bytes()
    result = run_cli("rollback", str(root), "--downgrade")
    assert result.returncode == 2 and "a symlink (to " in result.stderr, result.stderr
    assert _tree(outside) == before
    assert events.read_bytes() == migrated


def test_a_dangling_gitignore_link_is_not_followed(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    (root / ".jp-migrate").mkdir()
    (root / ".jp-migrate" / ".gitignore").symlink_to(outside / "created-by-jp-migrate")
    result = run_cli("conversations", str(root))
    assert result.returncode == 0, result.stderr
    assert not (outside / "created-by-jp-migrate").exists()
    assert _migrated(root / "conversations" / GOOD / "events.json")


@pytest.mark.parametrize("where", [".jp-migrate", ".jp-migrate/runs", "locks"])
def test_a_symlinked_state_or_lock_directory_is_refused_with_one_line(
    tmp_path: Path, where: str
) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    planted = root / where
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.symlink_to(outside, target_is_directory=True)
    before, store_before = _tree(outside), snapshot(root / "conversations")
    result = run_cli("conversations", str(root))
    assert result.returncode == 2
    assert _tree(outside) == before
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and str(root / where.split("/")[0]) in errors[0], result.stderr
    assert "Traceback" not in result.stderr
    assert snapshot(root / "conversations") == store_before  # no backup could be kept


def test_a_state_directory_that_is_a_file_is_one_line_not_one_per_conversation(
    tmp_path: Path,
) -> None:
    root = _store(tmp_path)
    (root / ".jp-migrate").write_text("not a directory\n")
    result = run_cli("conversations", str(root))
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: {root / '.jp-migrate'}: not a directory: no conversation of this store migrated"
    ]


def test_a_symlinked_backup_directory_is_refused_by_rollback(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    assert run_cli("conversations", str(root)).returncode == 0
    run = _one_run(root)
    backups = run / "backup" / "conversations"
    for kept in backups.iterdir():
        (outside / kept.name).write_bytes(b"[]\n")  # what an attacker would have restored
    (run / "backup").rename(tmp_path / "moved-backup")
    (run / "backup").symlink_to(outside.parent / "outside-backup", target_is_directory=True)
    (outside.parent / "outside-backup").mkdir()
    (outside.parent / "outside-backup" / "conversations").symlink_to(outside)
    before = _tree(outside)
    result = run_cli("rollback", str(root))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert _tree(outside) == before
    for name in (GOOD, OTHER):
        assert _migrated(root / "conversations" / name / "events.json")  # nothing restored


@pytest.mark.parametrize(
    "backup",
    ["/etc/hostname", "../../../../outside/precious.txt", "backup/../../../x.events.json"],
)
def test_a_forged_backup_path_in_the_manifest_is_refused(tmp_path: Path, backup: str) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    assert run_cli("conversations", str(root)).returncode == 0
    manifest = _one_run(root) / "manifest.json"
    data = json.loads(manifest.read_text())
    data["files"][0]["backup"] = backup
    manifest.write_text(json.dumps(data))
    before, store_before = _tree(outside), snapshot(root / "conversations")
    result = run_cli("rollback", str(root))
    assert result.returncode == 2
    assert "forged or damaged run record" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert _tree(outside) == before
    assert snapshot(root / "conversations") == store_before


@pytest.mark.parametrize(
    "path",
    ["/tmp/x/events.json", "conversations/../../outside/events.json", "conversations/../x"],
)
def test_a_forged_file_path_in_the_journal_is_refused(tmp_path: Path, path: str) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    assert run_cli("conversations", str(root)).returncode == 0
    run = _one_run(root)
    (run / "manifest.json").unlink()  # as after a killed run: the journal is read
    journal = run / "journal.jsonl"
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    lines[0]["path"] = path
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before = _tree(outside)
    result = run_cli("rollback", str(root))
    assert result.returncode == 2
    assert "forged or damaged run record" in result.stderr and "Traceback" not in result.stderr
    assert _tree(outside) == before


@pytest.mark.parametrize("run_id", ["../../outside", "/tmp", "..", "x/y"])
def test_a_run_id_is_a_name_never_a_path(tmp_path: Path, run_id: str) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    assert run_cli("conversations", str(root)).returncode == 0
    before = _tree(outside)
    result = run_cli("rollback", str(root), "--run", run_id)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        (
            f"error: --run {run_id!r}: not a run id (a run id is a name such as "
            "20261124T093000123456Z-4242, as under .jp-migrate/runs/)"
        )
    ]
    assert _tree(outside) == before


def test_a_symlinked_events_json_is_not_restored_through(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    root = _store(tmp_path)
    assert run_cli("conversations", str(root)).returncode == 0
    events = root / "conversations" / GOOD / "events.json"
    events.unlink()
    events.symlink_to(outside / "precious.txt")
    before = _tree(outside)
    result = run_cli("rollback", str(root))
    assert result.returncode == 2
    assert _tree(outside) == before
    assert events.is_symlink()
    assert not _migrated(root / "conversations" / OTHER / "events.json")  # the rest restored


BAD_NAME = os.fsdecode(b"17000000003-bad\xff\xfename")  # not UTF-8: held as surrogate escapes
SHOWN_NAME = "17000000003-bad\\xff\\xfename"


def _with_bad_name(tmp_path: Path) -> tuple[Path, list[Path]]:
    root = tmp_path / "ws" / ".jp"
    files = [
        write_conversation(root, name, legacy_events())
        for name in (GOOD, BAD_NAME, "17000000004-zgood")
    ]
    return root, files


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_name_that_is_not_utf8_travels_end_to_end(tmp_path: Path, jobs: str) -> None:
    root, files = _with_bad_name(tmp_path)
    result = run_cli("conversations", str(root), "--jobs", jobs)
    assert result.returncode == 0, result.stderr
    assert "\udcff" not in result.stdout and SHOWN_NAME in result.stdout
    assert all(_migrated(f) for f in files)
    run = _one_run(root)
    recorded = json.loads((run / "manifest.json").read_text())
    assert f"conversations/{BAD_NAME}/events.json" in [f["path"] for f in recorded["files"]]
    journal = [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]
    assert f"conversations/{BAD_NAME}/events.json" in [f["path"] for f in journal]
    verify = run_cli("conversations", str(root), "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    back = run_cli("rollback", str(root))
    assert back.returncode == 0, back.stderr
    assert SHOWN_NAME in back.stdout and not any(_migrated(f) for f in files)


@pytest.mark.parametrize("shard", ["1/2", "2/2"])
def test_a_name_that_is_not_utf8_can_be_sharded(tmp_path: Path, shard: str) -> None:
    root, _ = _with_bad_name(tmp_path)
    result = run_cli("conversations", str(root), "--dry-run", "--shard", shard)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("fmt", ["json", "markdown", "terminal", "junit", "sarif"])
def test_a_name_that_is_not_utf8_is_shown_escaped_in_every_report(tmp_path: Path, fmt: str) -> None:
    """Two names that are not UTF-8: one that would migrate, one in error (SARIF lists only
    errors); every report is written, UTF-8 only, both names escaped."""
    root, files = _with_bad_name(tmp_path)
    broken = os.fsdecode(b"17000000005-broken\xfe")
    write_conversation(root, broken, "[\n  {,\n]\n")
    report = tmp_path / f"report.{fmt}"
    result = run_cli("check", str(root.parent), "--no-tools", "--report", f"{fmt}={report}")
    assert result.returncode == 2, result.stderr  # the broken file is an input error
    assert "Traceback" not in result.stderr
    assert "17000000005-broken\\xfe" in result.stderr
    text = report.read_bytes().decode("utf-8")  # strict: nothing but UTF-8 written
    text = text.replace("\\\\", "\\")  # JSON and SARIF double a backslash
    if fmt == "sarif":
        text = unquote(text)  # its file URIs are percent-encoded
    assert "17000000005-broken\\xfe" in text
    if fmt != "sarif":
        assert SHOWN_NAME in text and GOOD in text and "17000000004-zgood" in text
    assert not any(_migrated(f) for f in files)
