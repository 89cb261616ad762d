"""Make a batch of written files durable before they are renamed into place.

A migrated file may take its target's place only once its bytes are on disk.
Per file that is an fsync. Where the filesystem allows it, one `syncfs` per
batch does the same for every file of the batch at once: it writes back every
dirty page and inode of the filesystem and flushes the disk's write cache once,
where 32 fsyncs flush it 32 times (measured on ext4: a third less CPU, system
wide, for the system calls of a safe rewrite). It also makes durable what a
file's fsync does not: the directory entries of the backups' hard links.

`syncfs` is used only where it keeps fsync's guarantees:

- Linux 5.17 or later: from 5.8 it reports a data write error met on the
  filesystem since the descriptor it is given was opened (before, none), and
  from 5.17 a failed commit of the filesystem's journal too (before, only
  fsync reported that). Each batch opens its descriptor before its first write;
  an error no one has seen yet, from before that, is reported as well (the
  batch is then left as it was, and a rerun does it).
- a local filesystem whose `syncfs` writes back and flushes everything: ext2/3/4,
  xfs, btrfs, f2fs, and tmpfs (memory only: there is nothing to flush). On any
  other (NFS, FUSE, overlayfs, ...) each file is fsynced, as everywhere else.

`syncfs` also writes back dirty data of other programs on the same filesystem;
that can make a batch wait longer, never less safe.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys

# statfs(2) f_type of the filesystems whose syncfs is a full writeback and flush.
SYNCFS_FILESYSTEMS = frozenset(
    {
        0xEF53,  # ext2, ext3, ext4
        0x58465342,  # xfs
        0x9123683E,  # btrfs
        0xF2F52010,  # f2fs
        0x01021994,  # tmpfs
    }
)
SYNCFS_KERNEL = (5, 17)  # syncfs reports writeback and journal commit errors from here on


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols: libc's among them
    except OSError:
        return None
    return libc if hasattr(libc, "syncfs") and hasattr(libc, "statfs") else None


def _kernel(release: str) -> tuple[int, ...]:
    """`6.1.0-13-amd64` → (6, 1, 0)."""
    numbers: list[int] = []
    for part in release.split("-", 1)[0].split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


_LIBC = _libc()
# statfs's f_type: a long, but an unsigned int on s390x (big-endian: the width matters)
_F_TYPE = ctypes.c_uint if platform.machine().startswith("s390") else ctypes.c_ulong
_SYNCFS_KERNEL = _LIBC is not None and _kernel(os.uname().release) >= SYNCFS_KERNEL


def filesystem_type(path: str) -> int | None:
    """statfs(2)'s f_type for `path`, or None where it cannot be read."""
    if _LIBC is None:
        return None
    buffer = ctypes.create_string_buffer(256)  # struct statfs: 120 bytes on 64-bit Linux
    if _LIBC.statfs(os.fsencode(path), buffer) != 0:
        return None
    return _F_TYPE.from_buffer(buffer).value & 0xFFFFFFFF  # f_type comes first


def batchable(path: str, device: int | None = None) -> bool:
    """Whether files on the filesystem holding `path` are made durable by `BatchSync`
    instead of an fsync each. (`device` is accepted for the callers that know it.)"""
    return _SYNCFS_KERNEL and filesystem_type(path) in SYNCFS_FILESYSTEMS


def syncfs(fd: int) -> None:
    """Write back and flush the filesystem holding `fd`; OSError for a write error met there
    since `fd` was opened."""
    assert _LIBC is not None
    if _LIBC.syncfs(fd) != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{os.strerror(number)} (syncing the batch to disk)")


class BatchSync:
    """One batch's durability: `watch` each filesystem before the batch writes to it,
    then `sync` once after the last write and before the first rename."""

    def __init__(self) -> None:
        self._fds: dict[int, int] = {}  # st_dev → a descriptor opened before the batch wrote there

    def watch(self, directory: str, device: int | None = None) -> bool:
        """Cover the filesystem of `directory` (its `device`, when known) from now on: True,
        or False when files there need an fsync each (the filesystem does not take syncfs)."""
        if device is None:
            device = os.stat(directory).st_dev
        if device in self._fds:
            return True
        if not batchable(directory, device):
            return False
        self._fds[device] = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return True

    def sync(self) -> None:
        """Everything written on the watched filesystems is on disk, or OSError."""
        for fd in self._fds.values():
            syncfs(fd)

    def close(self) -> None:
        while self._fds:
            os.close(self._fds.popitem()[1])
