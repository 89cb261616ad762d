"""JP's conversation locks: `<root>/locks/<conversation-id>.lock`, held with `flock`.

Mirrors `jp_storage::lock` (an exclusive, non-blocking `flock` on that file):
a conversation a running `jp` holds is skipped, and we hold the same lock while
rewriting one, so `jp` cannot write it under us. A workspace's `jp` may lock in
either of two `locks/` directories (`userlocal.lock_roots`); the lock is checked
and held in each.

A lock file we create holds `OURS`, is locked before anything else can see it
unlocked for long (created exclusively, then locked at once), and is removed
again while still locked. A lock file found in place (a `jp`'s) is locked and
left there. A killed run leaves its lock files behind, unlocked: `sweep`
removes those (marked as ours, held by nobody) before the next run takes any.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from jp_migrate.store import safepath
from jp_migrate.store.write import StrPath, unlink

LOCKS_DIR = "locks"
OURS = b"jp-migrate\n"  # the content of a lock file we created (a jp's holds something else)


class ConversationLocked(Exception):
    """Another process (a running `jp`) holds the conversation's lock."""


def lock_path(root: Path, conversation_id: str) -> Path:
    return Path(_lock_file(root, conversation_id))


def _lock_file(root: StrPath, conversation_id: str) -> str:
    return os.path.join(root, LOCKS_DIR, f"{conversation_id}.lock")


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock of an open file if nobody holds it; False when another does."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def is_locked(roots: tuple[StrPath, ...], conversation_id: str) -> bool:
    """Probe without creating anything (dry runs write nothing); any of `roots`' `locks/` held."""
    for root in roots:
        try:
            fd = os.open(_lock_file(root, conversation_id), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue  # no lock file there
        try:
            if not _try_lock(fd):
                return True
        finally:
            os.close(fd)  # closing releases a lock we took
    return False


def sweep(root: StrPath) -> None:
    """Remove the lock files a killed run of ours left in `root/locks/` (nobody holds them)."""
    directory = os.path.join(root, LOCKS_DIR)
    try:
        if not safepath.exists_as_directory(root, LOCKS_DIR):
            return
        names = [name for name in os.listdir(directory) if name.endswith(".lock")]
    except (OSError, safepath.UnsafePath):
        return  # run_stores reports a bad locks/ once
    for name in names:
        path = os.path.join(directory, name)
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if os.pread(fd, len(OURS) + 1, 0) == OURS and _try_lock(fd):
                unlink(path)  # still locked by us while the name goes
        except OSError:
            pass
        finally:
            os.close(fd)


@dataclass
class _Lock:
    """One lock file held: `created` by us (removed on release) or found (left)."""

    path: str
    fd: int
    created: bool

    @classmethod
    def take(cls, path: str) -> _Lock:
        """Raises ConversationLocked, or FileNotFoundError when `locks/` is not there."""
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd, created = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
        except FileExistsError:
            fd, created = os.open(path, flags), False
        if not _try_lock(fd):  # a jp's (or our fresh file, opened and locked by a jp first)
            os.close(fd)
            raise ConversationLocked(path)
        if created:
            try:
                os.write(fd, OURS)
            except OSError:
                unlink(path)
                os.close(fd)
                raise
        return cls(path, fd, created)

    def release(self) -> None:
        if self.created:  # like JP, leave no lock file behind; one we found stays
            unlink(self.path)  # still locked here: the name never exists unlocked
        os.close(self.fd)  # closing releases the flock


@dataclass
class LockTable:
    """The conversation locks one run holds. One conversation can have two copies (a
    workspace's `.jp/` and its user-local copy, JP's RFD 031), both guarded by the one
    lock of its id: the second copy shares the lock the first holds."""

    held: dict[str, tuple[_Lock, int]] = field(default_factory=dict)  # path → (lock, users)
    guard: threading.Lock = field(default_factory=threading.Lock)
    checked: set[str] = field(default_factory=set)  # `locks/` directories made and checked

    def hold(self, path: str) -> None:
        with self.guard:
            lock, count = self.held.get(path) or (self._take(path), 0)
            self.held[path] = (lock, count + 1)

    def _take(self, path: str) -> _Lock:
        directory = os.path.dirname(path)
        if directory in self.checked:
            try:
                return _Lock.take(path)
            except FileNotFoundError:  # `locks/` removed since: made again below
                pass
        # JP makes `locks/` the same way (`create_dir_all`); a link planted there is refused.
        safepath.directory(os.path.dirname(directory), os.path.basename(directory))
        self.checked.add(directory)
        return _Lock.take(path)

    def unhold(self, path: str) -> None:
        with self.guard:
            lock, count = self.held.pop(path)
            if count > 1:
                self.held[path] = (lock, count - 1)
            else:
                lock.release()


class HeldLock:
    """An acquired conversation lock, in every one of `roots`' `locks/` (the directories
    a `jp` may lock this conversation in, `userlocal.lock_roots`), or in none when another
    process holds any of them."""

    def __init__(self, table: LockTable, roots: tuple[StrPath, ...], conversation_id: str) -> None:
        self._table = table
        self._paths: list[str] = []
        try:
            for root in roots:
                path = _lock_file(root, conversation_id)
                table.hold(path)
                self._paths.append(path)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        while self._paths:
            self._table.unhold(self._paths.pop())


@contextmanager
def conversation_lock(
    table: LockTable, roots: tuple[StrPath, ...], conversation_id: str
) -> Iterator[None]:
    """Hold the conversation's lock, or raise ConversationLocked at once (never wait)."""
    held = HeldLock(table, roots, conversation_id)
    try:
        yield
    finally:
        held.release()
