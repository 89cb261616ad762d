"""JP's conversation locks: `<root>/locks/<conversation-id>.lock`, held with `flock`.

Mirrors `jp_storage::lock` (an exclusive, non-blocking `flock` on that file):
a conversation a running `jp` holds is skipped, and we hold the same lock while
rewriting one, so `jp` cannot write it under us. A workspace's `jp` may lock in
either of two `locks/` directories (`userlocal.lock_roots`); the lock is checked
and held in each.

A run holds one locked anchor file per `locks/` directory,
`locks/.jp-migrate-<pid>.anchor`, and gives it each conversation's lock name
with a hard link while it rewrites that conversation (see `LockTable`); where
links are refused, each lock is a file of its own. Every file we make holds
`OURS`, and its names are removed while still locked. A lock file found in place
(a `jp`'s) is locked there and left. A killed run leaves its anchor and names
behind, unlocked: `sweep` removes those (ours, held by nobody) before the next
run or rollback takes any lock, so no later run meets them.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from jp_migrate.files import safepath
from jp_migrate.files.write import StrPath, unlink

LOCKS_DIR = "locks"
OURS = b"jp-migrate\n"  # the content of a lock file we created (a jp's holds something else)
ANCHOR_PREFIX = (
    ".jp-migrate-"  # `locks/.jp-migrate-<pid>.anchor`: no conversation id, jp ignores it
)
ANCHOR_SUFFIX = ".anchor"


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
        names = [n for n in os.listdir(directory) if n.endswith((".lock", ANCHOR_SUFFIX))]
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
class _Anchor:
    """This run's locked file in one `locks/` directory, linked under each lock name."""

    path: str
    fd: int


def _make_anchor(directory: str) -> _Anchor | None:
    """A new anchor, locked before anything is linked to it; None where none can be made."""
    path = os.path.join(directory, f"{ANCHOR_PREFIX}{os.getpid()}{ANCHOR_SUFFIX}")
    unlink(path)  # a dead run's of the same pid: never through a link planted there
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.write(fd, OURS) == len(OURS):
            return _Anchor(path, fd)
    except OSError:
        pass
    unlink(path)
    os.close(fd)
    return None


@dataclass
class _Lock:
    """One lock file held: a name of the anchor (`fd` None), a file `created` by us, or
    one found in place (a `jp`'s: left there)."""

    path: str
    fd: int | None
    created: bool

    @classmethod
    def take(cls, path: str, anchor: _Anchor | None) -> _Lock:
        """Raises ConversationLocked, or FileNotFoundError when `locks/` is not there."""
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
        if anchor is not None:
            try:
                os.link(anchor.path, path)  # a name, no new inode: already locked
                return cls(path, None, True)
            except FileExistsError:
                return cls._found(path)
            except FileNotFoundError:
                raise
            except OSError:
                pass  # links refused here: a file of its own
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            return cls._found(path)
        if not _try_lock(fd):  # a jp opened our fresh file and locked it first
            os.close(fd)
            raise ConversationLocked(path)
        try:
            os.write(fd, OURS)
        except OSError:
            unlink(path)
            os.close(fd)
            raise
        return cls(path, fd, True)

    @classmethod
    def _found(cls, path: str) -> _Lock:
        """A lock file already there: locked in place; removed after only when it is ours
        (a killed run's, met after the sweep)."""
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        if not _try_lock(fd):
            os.close(fd)
            raise ConversationLocked(path)
        return cls(path, fd, os.pread(fd, len(OURS) + 1, 0) == OURS)

    def release(self) -> None:
        if self.created:  # like JP, leave no lock file behind; one we found stays
            unlink(self.path)  # still locked here: the name never exists unlocked
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock (the anchor stays locked)


@dataclass
class LockTable:
    """The conversation locks one run holds (`close` it when done).

    Creating and removing a file per lock costs an inode each (creating and, at the
    close of an unlinked file, freeing one are the dearest metadata operations on
    ext4), so the table locks one anchor file per `locks/` directory for the whole
    run and links it under each lock name it holds: a `jp` opening the name finds it
    locked, as if it were a file of its own. One conversation can have two copies (a
    workspace's `.jp/` and its user-local copy, JP's RFD 031), both guarded by the one
    lock of its id: the second copy shares the lock the first holds.
    """

    held: dict[str, tuple[_Lock, int]] = field(default_factory=dict)  # path → (lock, users)
    guard: threading.Lock = field(default_factory=threading.Lock)
    anchors: dict[str, _Anchor | None] = field(default_factory=dict)  # `locks/` → its anchor

    def hold(self, path: str) -> None:
        with self.guard:
            lock, count = self.held.get(path) or (self._take(path), 0)
            self.held[path] = (lock, count + 1)

    def _take(self, path: str) -> _Lock:
        directory = os.path.dirname(path)
        if directory in self.anchors:
            try:
                return _Lock.take(path, self.anchors[directory])
            except FileNotFoundError:  # `locks/` (or the anchor) removed since
                self._drop(directory)
        # JP makes `locks/` the same way (`create_dir_all`); a link planted there is refused.
        safepath.directory(os.path.dirname(directory), os.path.basename(directory))
        self.anchors[directory] = _make_anchor(directory)
        return _Lock.take(path, self.anchors[directory])

    def unhold(self, path: str) -> None:
        with self.guard:
            lock, count = self.held.pop(path)
            if count > 1:
                self.held[path] = (lock, count - 1)
            else:
                lock.release()

    def _drop(self, directory: str) -> None:
        anchor = self.anchors.pop(directory, None)
        if anchor is not None:
            unlink(anchor.path)  # unlinked while locked, then unlocked
            os.close(anchor.fd)

    def close(self) -> None:
        """Every lock is released by now: the anchors go."""
        with self.guard:
            for directory in list(self.anchors):
                self._drop(directory)


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
