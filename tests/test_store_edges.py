"""Store directories as JP leaves them in odd moments: a conversation with only its
metadata, a `jp` in the middle of its own write."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import run_cli
from store_support import legacy_events, responses, snapshot, write_conversation

GOOD = "17000000001-good"
ODD = "17000000002-odd"


def _migrated(path: Path) -> bool:
    return isinstance(responses(path)[0]["content"], list)


def _metadata_only(root: Path) -> Path:
    directory = root / "conversations" / ODD
    directory.mkdir(parents=True)
    (directory / "metadata.json").write_text('{\n  "title": "t"\n}\n')
    return directory


@pytest.mark.parametrize(
    "args",
    [(), ("--dry-run",), ("--check",), ("--verify",)],
    ids=["write", "dry-run", "check", "verify"],
)
def test_a_metadata_only_directory_is_skipped_with_a_note(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """JP's own history holds one; JP logs a warning and skips it: so do we, exit 0."""
    root = tmp_path / "store"
    good = write_conversation(root, GOOD, legacy_events())
    if "--verify" in args:
        assert run_cli("conversations", str(root)).returncode == 0
    odd = _metadata_only(root)
    before = sorted(p.name for p in odd.iterdir())
    result = run_cli("conversations", str(root), *args)
    expected = 1 if "--check" in args else 0
    assert result.returncode == expected, result.stdout + result.stderr
    notes = [line for line in result.stderr.splitlines() if ODD in line]
    assert len(notes) == 1 and notes[0].startswith("note: ") and "metadata.json only" in notes[0]
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in odd.iterdir()) == before
    assert _migrated(good) == ("--dry-run" not in args and "--check" not in args)


def test_a_metadata_only_directory_is_left_by_rollback_downgrade(tmp_path: Path) -> None:
    root = tmp_path / "store"
    good = write_conversation(root, GOOD, legacy_events())
    assert run_cli("conversations", str(root), "--no-backup").returncode == 0
    _metadata_only(root)
    result = run_cli("rollback", str(root), "--downgrade")
    assert result.returncode == 0, result.stderr
    assert not _migrated(good)


def test_check_passes_a_metadata_only_directory(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    write_conversation(workspace / ".jp", GOOD, legacy_events())
    assert run_cli("conversations", str(workspace)).returncode == 0
    _metadata_only(workspace / ".jp")
    result = run_cli("check", str(workspace), "--no-tools")
    assert result.returncode == 0, result.stdout + result.stderr


@contextmanager
def _jp_writing(root: Path, name: str) -> Iterator[None]:
    """What a `jp` in the middle of its write leaves: its lock held and `events.json.tmp`."""
    locks = root / "locks"
    locks.mkdir(exist_ok=True)
    fd = os.open(locks / f"{name.split('-', 1)[0]}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    tmp = root / "conversations" / name / "events.json.tmp"
    tmp.write_text("[\n")
    try:
        yield
    finally:
        os.close(fd)
        tmp.unlink()


@pytest.mark.parametrize(
    "args",
    [(), ("--dry-run",), ("--check",), ("--verify",)],
    ids=["write", "dry", "check", "verify"],
)
def test_a_jp_mid_write_is_reported_as_locked(tmp_path: Path, args: tuple[str, ...]) -> None:
    root = tmp_path / "store"
    good = write_conversation(root, GOOD, legacy_events())
    busy = write_conversation(root, ODD, legacy_events())
    with _jp_writing(root, ODD):
        before = snapshot(root / "conversations" / ODD)
        result = run_cli("conversations", str(root), *args)
        assert snapshot(root / "conversations" / ODD) == before
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if ODD in line]
    assert lines == [f"skipped: {busy}: locked by a running jp"], result.stderr
    assert _migrated(good) == (not args)
