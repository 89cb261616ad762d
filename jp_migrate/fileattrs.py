"""A file written in place of another keeps its permissions and, where it may, its owner.

The new file is created by us: the umask takes bits from its mode and it is owned
by whoever runs jp-migrate. An editor's save (or JP's own rewrite, which renames
a temporary too) would leave a group-writable file group-writable; so do we.
"""

from __future__ import annotations

import os
import stat

_UMASK: int | None = None


def umask() -> int:
    """The process umask (read once: setting it is the only way to read it)."""
    global _UMASK
    if _UMASK is None:
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


def created_mode(mode: int) -> int:
    """The permissions `os.open(..., O_CREAT, mode)` gives a new file."""
    return stat.S_IMODE(mode) & ~umask()


def keep_mode(fd: int, mode: int, current: int) -> None:
    """Give the open file `fd` (whose permissions are `current`) the permissions of `mode`."""
    if stat.S_IMODE(current) != stat.S_IMODE(mode):
        os.fchmod(fd, stat.S_IMODE(mode))


def keep_owner(fd: int, uid: int, gid: int) -> None:
    """The new file gets the old one's owner (root can give any) and, where the user may set
    it (a group they belong to), its group; otherwise the user's default group, as an
    editor's save would give."""
    if os.geteuid() == 0:
        if (uid, gid) != (0, os.getegid()):
            os.fchown(fd, uid, gid)
    elif gid != os.getegid():
        try:
            os.fchown(fd, -1, gid)
        except PermissionError:
            pass  # not a group of ours: the file cannot keep it
