"""Conversation locks (jp_migrate/store/lock.py): one anchor inode per run, linked under
each lock name it holds.

A `jp` (here: another process doing what `jp_storage::lock` does, open + flock
LOCK_EX|LOCK_NB) must find every conversation we hold locked, and a killed
run's leftovers must not block the next run nor outlive it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from store_support import jp_try_lock

from jp_migrate.store import lock
from jp_migrate.store.lock import ConversationLocked, HeldLock, LockTable, lock_path

JP_HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(30)
"""


def _held(table: LockTable, root: Path, conversation_id: str) -> HeldLock:
    return HeldLock(table, (str(root),), conversation_id)


def test_held_conversations_are_locked_for_jp_and_released_after(tmp_path: Path) -> None:
    table = LockTable()
    held = [_held(table, tmp_path, f"1760000000{i}") for i in range(3)]
    try:
        inodes = {os.stat(lock_path(tmp_path, f"1760000000{i}")).st_ino for i in range(3)}
        assert len(inodes) == 1  # one anchor inode, linked under each name: no file per lock
        for i in range(3):
            assert jp_try_lock(lock_path(tmp_path, f"1760000000{i}")) == "locked"
    finally:
        for h in held:
            h.release()
    table.close()
    assert os.listdir(tmp_path / "locks") == []  # like jp: no lock file left behind
    assert jp_try_lock(lock_path(tmp_path, "17600000000")) == "acquired"


def test_the_copies_of_one_conversation_share_its_lock(tmp_path: Path) -> None:
    """A workspace copy and its user-local copy (one id): the second shares the lock the first holds.

    The lock stays held, for a jp, until the last copy lets go of it.
    """
    table = LockTable()
    path = lock_path(tmp_path, "17600000030")
    first = _held(table, tmp_path, "17600000030")
    second = _held(table, tmp_path, "17600000030")  # no ConversationLocked: the lock is ours
    try:
        first.release()
        assert jp_try_lock(path) == "locked"
    finally:
        second.release()
        table.close()
    assert not path.exists()
    assert jp_try_lock(path) == "acquired"


def test_locks_dir_removed_mid_run_is_made_again(tmp_path: Path) -> None:
    table = LockTable()
    _held(table, tmp_path, "17600000020").release()
    shutil.rmtree(tmp_path / "locks")  # the anchor with it
    held = _held(table, tmp_path, "17600000021")
    try:
        assert jp_try_lock(lock_path(tmp_path, "17600000021")) == "locked"
    finally:
        held.release()
        table.close()
    assert os.listdir(tmp_path / "locks") == []


def test_a_lock_jp_holds_is_respected(tmp_path: Path) -> None:
    path = lock_path(tmp_path, "17600000005")
    path.parent.mkdir(parents=True)
    jp = subprocess.Popen(
        [sys.executable, "-c", JP_HOLD_LOCK, str(path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert jp.stdout is not None and jp.stdout.readline().strip() == "held"
        with pytest.raises(ConversationLocked):
            _held(LockTable(), tmp_path, "17600000005")
        assert path.exists()  # jp's file is never removed by us
    finally:
        jp.kill()
        jp.wait()


def test_a_lock_file_jp_left_is_locked_in_place_and_kept(tmp_path: Path) -> None:
    path = lock_path(tmp_path, "17600000006")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")  # a jp's, unlocked (jp exited)
    lock.sweep(tmp_path)
    assert path.exists()  # not ours: the sweep leaves it
    table = LockTable()
    held = _held(table, tmp_path, "17600000006")
    try:
        assert jp_try_lock(path) == "locked"
    finally:
        held.release()
        table.close()
    assert path.exists()


def test_leftovers_of_a_killed_run_are_swept_and_do_not_block(tmp_path: Path) -> None:
    """A killed run leaves its anchor and lock names linked to it, none of them locked."""
    locks = tmp_path / "locks"
    locks.mkdir()
    dead_anchor = locks / f"{lock.ANCHOR_PREFIX}999999{lock.ANCHOR_SUFFIX}"
    dead_anchor.write_bytes(lock.OURS)
    names = [lock_path(tmp_path, f"1760000001{i}") for i in range(3)]
    for name in names:
        os.link(dead_anchor, name)
    table = LockTable()
    held = _held(table, tmp_path, "17600000010")  # met before a sweep: locked in place
    try:
        assert jp_try_lock(names[0]) == "locked"
        lock.sweep(tmp_path)  # the names nobody holds go; the held inode's stay
        assert names[0].exists()
    finally:
        held.release()
        table.close()
    lock.sweep(tmp_path)
    assert os.listdir(locks) == []


def test_a_planted_link_in_locks_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"precious\n")
    (tmp_path / "locks").mkdir()
    lock_path(tmp_path, "17600000040").symlink_to(outside)
    with pytest.raises(OSError):
        _held(LockTable(), tmp_path, "17600000040")
    lock.sweep(tmp_path)
    assert outside.read_bytes() == b"precious\n"
