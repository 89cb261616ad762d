"""JP's conversation locks: `<root>/locks/<conversation-id>.lock`, held with `flock`.

Mirrors `jp_storage::lock` (an exclusive, non-blocking `flock` on that file):
a conversation a running `jp` holds is skipped, and we hold the same lock while
rewriting one, so `jp` cannot write it under us.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCKS_DIR = "locks"


class ConversationLocked(Exception):
    """Another process (a running `jp`) holds the conversation's lock."""


def lock_path(root: Path, conversation_id: str) -> Path:
    return root / LOCKS_DIR / f"{conversation_id}.lock"


def is_locked(root: Path, conversation_id: str) -> bool:
    """Probe without creating anything (dry runs write nothing)."""
    path = lock_path(root, conversation_id)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases a lock we may have taken
    return False


_MADE: set[Path] = set()


def _ensure_dir(directory: Path) -> None:
    """`locks/` once per process (JP creates it the same way, `create_dir_all`)."""
    if directory not in _MADE:
        directory.mkdir(parents=True, exist_ok=True)
        _MADE.add(directory)


def _create(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    except FileNotFoundError:  # `locks/` removed since we made it
        _MADE.discard(path.parent)
        _ensure_dir(path.parent)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)


class HeldLock:
    """An acquired conversation lock; `release()` may run on another thread (the committer's)."""

    def __init__(self, root: Path, conversation_id: str) -> None:
        self.path = lock_path(root, conversation_id)
        _ensure_dir(self.path.parent)
        try:
            self._fd: int | None = _create(self.path)
            self._created = True
        except FileExistsError:
            self._fd = os.open(self.path, os.O_RDWR)
            self._created = False
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            self._fd = None
            raise ConversationLocked(str(self.path)) from None

    def release(self) -> None:
        if self._fd is None:
            return
        if self._created:  # like JP, leave no lock file behind; one we found stays
            self.path.unlink(missing_ok=True)
        os.close(self._fd)  # closing releases the flock
        self._fd = None


@contextmanager
def conversation_lock(root: Path, conversation_id: str) -> Iterator[None]:
    """Hold the conversation's lock, or raise ConversationLocked at once (never wait)."""
    held = HeldLock(root, conversation_id)
    try:
        yield
    finally:
        held.release()
