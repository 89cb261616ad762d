"""JP's conversation locks: `<root>/locks/<conversation-id>.lock`, held with `flock`.

Mirrors `jp_storage::lock` (an exclusive, non-blocking `flock` on that file):
a conversation a running `jp` holds is skipped, and we hold the same lock while
rewriting one, so `jp` cannot write it under us. A workspace's `jp` may lock in
either of two `locks/` directories (`userlocal.lock_roots`); the lock is checked
and held in each.

Creating a file (a new inode) is the dearest metadata operation on ext4, a few
tenths of a millisecond, and a run would otherwise create one lock file per
conversation. So each process creates ONE anchor file per `locks/` directory,
`locks/.jp-migrate-<pid>.anchor`, holds the exclusive `flock` on it for the
whole run, and gives it the conversation's lock name with a hard link (a
directory entry, no new inode) while it rewrites that conversation, unlinking
that name after. A `flock` belongs to the open file of an inode, so a `jp`
opening `locks/<id>.lock` finds it held, exactly as if we had created that file;
the name never exists unlocked (the anchor is locked before it is linked). A
`jp` that opened the name before we unlinked it cannot take the lock later in
our run either (the anchor stays locked until the run ends), unlike with a file
that is unlinked and closed. The kernel drops the lock when the process dies,
so a killed run leaves at most names whose inode nobody holds: orphans, as after
a killed `jp`; the next run removes anchors nobody holds. Where links are
refused, each lock is a file of its own, created and removed. A lock file that
already exists (a `jp`'s, or left by a killed one) is opened and locked in
place, and left there.
"""

from __future__ import annotations

import atexit
import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from jp_migrate.store import safepath
from jp_migrate.store.write import StrPath, unlink

LOCKS_DIR = "locks"


class ConversationLocked(Exception):
    """Another process (a running `jp`) holds the conversation's lock."""


def lock_path(root: Path, conversation_id: str) -> Path:
    return Path(_lock_file(root, conversation_id))


def _lock_file(root: StrPath, conversation_id: str) -> str:
    """`lock_path` as a string, the form used per conversation (pathlib objects cost microseconds)."""
    return os.path.join(root, LOCKS_DIR, f"{conversation_id}.lock")


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock of an open file if nobody holds it; False when another does."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def is_locked(roots: StrPath | tuple[StrPath, ...], conversation_id: str) -> bool:
    """Probe without creating anything (dry runs write nothing); any of `roots`' `locks/` held."""
    for root in roots if isinstance(roots, tuple) else (roots,):
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


_MADE: set[str] = set()


def _ensure_dir(directory: str) -> None:
    """`locks/` once per process (JP creates it the same way, `create_dir_all`)."""
    if directory not in _MADE:  # a link planted as locks/ is refused, not followed
        safepath.directory(os.path.dirname(directory), os.path.basename(directory))
        _MADE.add(directory)


def _create(path: str) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileNotFoundError:  # `locks/` removed since we made it
        _MADE.discard(os.path.dirname(path))
        _ensure_dir(os.path.dirname(path))
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)


ANCHOR_PREFIX = (
    ".jp-migrate-"  # `locks/.jp-migrate-<pid>.anchor`: no conversation id, jp ignores it
)
ANCHOR_SUFFIX = ".anchor"


@dataclass
class _Anchor:
    path: str
    fd: int


_ANCHORS: dict[tuple[int, str], _Anchor | None] = {}  # (pid, locks dir) → this process's anchor


def _sweep(directory: str) -> None:
    """Remove anchors of runs that died (nobody holds their lock); a live run's stays."""
    try:
        names = [n for n in os.listdir(directory) if n.startswith(ANCHOR_PREFIX)]
    except OSError:
        return
    for name in names:
        if not name.endswith(ANCHOR_SUFFIX):
            continue
        path = os.path.join(directory, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            if _try_lock(fd):  # else a live run's
                unlink(path)  # still locked by us while unlinking
        except OSError:
            pass
        finally:
            os.close(fd)


def _anchor(directory: str) -> _Anchor | None:
    """This process's locked anchor file in `directory` (made on first use), or None."""
    key = (os.getpid(), directory)  # a forked worker makes its own (flock is per open file)
    if key not in _ANCHORS:
        _sweep(directory)
        path = os.path.join(directory, f"{ANCHOR_PREFIX}{os.getpid()}{ANCHOR_SUFFIX}")
        anchor: _Anchor | None = None
        try:
            fd = _create(path)  # remakes `locks/` when it was removed since we made it
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                anchor = _Anchor(path, fd)
            except OSError:  # another run's sweep took it first: do without
                os.close(fd)
        except OSError:
            anchor = None
        _ANCHORS[key] = anchor
    return _ANCHORS[key]


def _drop_anchor(key: tuple[int, str]) -> None:
    anchor = _ANCHORS.pop(key, None)
    if anchor is not None:
        unlink(anchor.path)  # unlink while locked, then unlock
        os.close(anchor.fd)


def release_anchors() -> None:
    """Remove this process's anchors (call when no conversation lock is held any more)."""
    for key in [k for k in _ANCHORS if k[0] == os.getpid()]:
        _drop_anchor(key)
    while _STALE:
        os.close(_STALE.popitem()[1])
    _MADE.clear()  # the next run checks `locks/` again


atexit.register(release_anchors)


def _link_anchor(path: str) -> bool:
    """Name the anchor `path`; False where there is no anchor or linking is refused.

    Raises FileExistsError when `path` exists, FileNotFoundError when its directory does not.
    """
    directory = os.path.dirname(path)
    anchor = _anchor(directory)
    if anchor is None:
        return False
    try:
        os.link(anchor.path, path)
    except FileExistsError:
        raise
    except FileNotFoundError:
        if not os.path.isdir(directory):
            raise
        _ANCHORS[(os.getpid(), directory)] = None  # the anchor's name was removed: do without
        os.close(anchor.fd)
        return False
    except OSError:  # links refused here (filesystem): do without
        _drop_anchor((os.getpid(), directory))
        _ANCHORS[(os.getpid(), directory)] = None
        return False
    return True


def _acquire(path: str) -> int | None:
    """Make `path` a lock we hold; the descriptor of a file of its own, or None for the anchor.

    Raises FileExistsError when `path` already exists.
    """
    try:
        if _link_anchor(path):
            return None
    except FileNotFoundError:  # `locks/` removed since we made it
        _MADE.discard(os.path.dirname(path))
        _ensure_dir(os.path.dirname(path))
        if _link_anchor(path):
            return None
    fd = _create(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:  # a jp opened our fresh file and locked it first
        os.close(fd)
        raise ConversationLocked(str(path)) from None
    return fd


_STALE: dict[
    tuple[int, int], int
] = {}  # anchors of dead runs met under lock names: held till run end


def _open_existing(path: str) -> int | None:
    """Lock a lock file found in place; None when it was a dead run's anchor (its name now removed).

    A name linked to a dead run's anchor (more than one link) is an orphan: we
    lock that inode for the rest of the run (so a `jp` that opened the name before
    we removed it cannot lock it either), remove the name, and the caller links ours.
    """
    fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
    info = os.fstat(fd)
    key = (info.st_dev, info.st_ino)
    if key in _STALE:  # another name of an orphan we already hold
        os.close(fd)
        unlink(path)
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise ConversationLocked(str(path)) from None
    if info.st_nlink > 1:
        _STALE[key] = fd
        unlink(path)
        return None
    return fd


class _Lock:
    """One lock file held: a name of the anchor (`fd` None), a file of its own, or one found."""

    def __init__(self, path: str) -> None:
        self.path = path
        _ensure_dir(os.path.dirname(path))
        self.fd: int | None = None
        for _ in range(3):  # a found orphan's name is removed, then ours linked
            try:
                self.fd = _acquire(path)
                self.created = True
                return
            except FileExistsError:
                self.fd = _open_existing(path)
                if self.fd is not None:
                    self.created = False
                    return
        raise ConversationLocked(path)

    def release(self) -> None:
        if self.created:  # like JP, leave no lock file behind; one we found stays
            unlink(self.path)  # still locked here: the name never exists unlocked
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock (the anchor stays locked)
            self.fd = None


# Lock files this process holds → (the lock, how many HeldLocks share it). One conversation
# can have two copies (a workspace's `.jp/` and its user-local copy, JP's RFD 031), and both
# are guarded by the one lock of its id: the second copy shares the lock the first holds.
_HELD: dict[tuple[int, str], tuple[_Lock, int]] = {}
_HELD_GUARD = threading.Lock()  # HeldLock.release runs on the committer's threads


def _hold(path: str) -> None:
    with _HELD_GUARD:
        key = (os.getpid(), path)  # a forked worker holds none of its parent's locks
        lock, count = _HELD.get(key) or (_Lock(path), 0)
        _HELD[key] = (lock, count + 1)


def _unhold(path: str) -> None:
    with _HELD_GUARD:
        key = (os.getpid(), path)
        lock, count = _HELD.pop(key)
        if count > 1:
            _HELD[key] = (lock, count - 1)
        else:
            lock.release()


class HeldLock:
    """An acquired conversation lock; `release()` may run on another thread (the committer's).

    `roots` are the directories whose `locks/` JP may use for this conversation
    (`userlocal.lock_roots`: the user-local one first, as JP prefers it). The lock
    is held in every one of them, so a `jp` finds it held whichever it opens; it
    is taken in none when another process holds any of them. Within this process
    it is shared: a second HeldLock of the same conversation (its other copy)
    counts on the first, and the lock goes with the last release.
    """

    def __init__(self, roots: StrPath | tuple[StrPath, ...], conversation_id: str) -> None:
        self._paths: list[str] = []
        try:
            for root in roots if isinstance(roots, tuple) else (roots,):
                path = _lock_file(root, conversation_id)
                _hold(path)
                self._paths.append(path)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        while self._paths:
            _unhold(self._paths.pop())


@contextmanager
def conversation_lock(roots: StrPath | tuple[StrPath, ...], conversation_id: str) -> Iterator[None]:
    """Hold the conversation's lock, or raise ConversationLocked at once (never wait)."""
    held = HeldLock(roots, conversation_id)
    try:
        yield
    finally:
        held.release()
