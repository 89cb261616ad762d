"""Conversation locks held through one linked anchor inode (jp_migrate/store/lock.py).

A `jp` (here: another process doing what `jp_storage::lock` does, open + flock
LOCK_EX|LOCK_NB) must find every conversation we hold locked, whichever way we
hold it, and a killed run's leftovers must not block the next run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from store_support import jp_try_lock

from jp_migrate.store import lock
from jp_migrate.store.lock import ConversationLocked, HeldLock, lock_path

JP_HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(30)
"""


def test_held_conversations_are_locked_for_jp_and_released_after(tmp_path: Path) -> None:
    held = [HeldLock(tmp_path, f"1760000000{i}") for i in range(3)]
    try:
        inodes = {os.stat(lock_path(tmp_path, f"1760000000{i}")).st_ino for i in range(3)}
        assert (
            len(inodes) == 1
        )  # one anchor inode, linked under each name: no file created per lock
        for i in range(3):
            assert jp_try_lock(lock_path(tmp_path, f"1760000000{i}")) == "locked"
    finally:
        for h in held:
            h.release()
    assert not lock_path(tmp_path, "17600000000").exists()  # like jp: no lock file left behind
    assert jp_try_lock(lock_path(tmp_path, "17600000000")) == "acquired"
    lock.release_anchors()
    assert os.listdir(tmp_path / "locks") == ["17600000000.lock"]  # jp_try_lock's own file


def test_the_copies_of_one_conversation_share_its_lock(tmp_path: Path) -> None:
    """A workspace copy and its user-local copy (one id): the second shares the lock the first holds.

    The lock stays held, for a jp, until the last copy lets go of it.
    """
    path = lock_path(tmp_path, "17600000030")
    first = HeldLock(tmp_path, "17600000030")
    second = HeldLock(tmp_path, "17600000030")  # no ConversationLocked: the lock is ours
    try:
        first.release()
        assert jp_try_lock(path) == "locked"
    finally:
        second.release()
    assert not path.exists()
    assert jp_try_lock(path) == "acquired"
    lock.release_anchors()


def test_locks_dir_removed_between_runs_still_links_the_anchor(tmp_path: Path) -> None:
    """A second run in one process, after `locks/` was removed, links its anchor again."""
    first = HeldLock(tmp_path, "17600000020")
    first.release()
    lock.release_anchors()
    (tmp_path / "locks").rmdir()
    held = [HeldLock(tmp_path, f"1760000002{i}") for i in range(2)]
    try:
        inodes = {os.stat(lock_path(tmp_path, f"1760000002{i}")).st_ino for i in range(2)}
        assert len(inodes) == 1  # the anchor, not a file per lock
    finally:
        for h in held:
            h.release()
        lock.release_anchors()


def test_a_lock_jp_holds_is_respected(tmp_path: Path) -> None:
    path = lock_path(tmp_path, "17600000005")
    path.parent.mkdir(parents=True)
    jp = subprocess.Popen(
        [
            sys.executable,
            "-c",
            JP_HOLD_LOCK,
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert jp.stdout is not None and jp.stdout.readline().strip() == "held"
        with pytest.raises(ConversationLocked):
            HeldLock(tmp_path, "17600000005")
        assert path.exists()  # jp's file is never removed by us
    finally:
        jp.kill()
        jp.wait()
        lock.release_anchors()


def test_leftovers_of_a_killed_run_do_not_block_the_next(tmp_path: Path) -> None:
    """A killed run leaves its anchor and lock names linked to it, none of them locked."""
    locks = tmp_path / "locks"
    locks.mkdir()
    dead_anchor = locks / f"{lock.ANCHOR_PREFIX}999999{lock.ANCHOR_SUFFIX}"
    dead_anchor.write_bytes(b"")
    names = [lock_path(tmp_path, f"1760000001{i}") for i in range(3)]
    for name in names:
        os.link(dead_anchor, name)
    held = [HeldLock(tmp_path, f"1760000001{i}") for i in range(3)]  # all at once, as in a batch
    try:
        assert not dead_anchor.exists()  # nobody held it: swept
        for name in names:
            assert jp_try_lock(name) == "locked"
    finally:
        for h in held:
            h.release()
        lock.release_anchors()
    assert not any(name.exists() for name in names)
    assert os.listdir(locks) == []


def test_no_backup_reuse_never_changes_what_a_reader_of_the_old_file_sees(tmp_path: Path) -> None:
    """--no-backup reuses replaced originals as temporaries, but never one somebody has open."""
    from store_support import generated_store

    from jp_migrate.store.api import StoreOptions, run_stores
    from jp_migrate.store.migrate import BATCH_FILES

    store = generated_store(tmp_path, conversations=BATCH_FILES + 16, total_bytes=600_000)
    files = sorted(store.glob("conversations/**/events.json"))
    readers = {path: (os.open(path, os.O_RDONLY), path.read_bytes()) for path in files}
    try:
        run = run_stores([store], StoreOptions(backup=False))
        assert sum(f.status == "migrated" for f in run.files) > BATCH_FILES  # spares were offered
        for path, (fd, original) in readers.items():
            assert os.pread(fd, len(original) + 1, 0) == original, path
    finally:
        for fd, _ in readers.values():
            os.close(fd)
