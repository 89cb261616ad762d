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


@contextmanager
def conversation_lock(root: Path, conversation_id: str) -> Iterator[None]:
    """Hold the conversation's lock, or raise ConversationLocked at once (never wait)."""
    path = lock_path(root, conversation_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    created = not path.exists()
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConversationLocked(str(path)) from None
        try:
            yield
        finally:
            if created:  # like JP, leave no lock file behind; one we found stays
                path.unlink(missing_ok=True)
    finally:
        os.close(fd)
