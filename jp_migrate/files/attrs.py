"""A file written in place of another keeps its permissions and, where it may, its owner.

The new file is created by us: the umask takes bits from its mode and it is owned
by whoever runs jp-migrate. An editor's save (or JP's own rewrite, which renames
a temporary too) would leave a group-writable file group-writable; so do we.
"""

from __future__ import annotations

import os
import stat


def _read_umask() -> int:
    """The process umask: where the system tells it (Linux: /proc), without changing it;
    elsewhere setting it is the only way to read it, for an instant in which a file another
    thread creates would get the wrong permissions. So it is read once, when this module
    is imported: before the threads that write files (the store's commit pool) start."""
    try:
        with open("/proc/self/status", "rb") as status:
            for entry in status:
                if entry.startswith(b"Umask:"):
                    return int(entry.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _read_umask()


def created_mode(mode: int) -> int:
    """The permissions `os.open(..., O_CREAT, mode)` gives a new file."""
    return stat.S_IMODE(mode) & ~UMASK


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
