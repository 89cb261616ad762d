"""Atomic file replacement with an optional zero-copy backup.

The new bytes go to a temporary file beside the target, are fsynced, and are
renamed over the target; the directory is fsynced after (`atomic_write`). A
migration writes its temporaries with `write_temp` and makes a whole batch of
them durable at once before renaming them (see `durable`). The backup is a hard
link to the original inode made before the rename (the rename only moves the
name), so it costs no byte copy; a copy is made only where links are refused.

The temporary name is `.<file>.jp-migrate.partial`, not `*.tmp`: JP's sanitizer
deletes stray `*.tmp` files in `conversations/` and must not remove ours mid-write,
and a `*.tmp` already there is JP's own interrupted write, which we report.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat

from jp_migrate.fileattrs import created_mode, keep_mode, keep_owner
from jp_migrate.store.safepath import create_new, is_regular

TEMP_SUFFIX = ".jp-migrate.partial"

StrPath = str | os.PathLike[str]


def temp_path(target: StrPath) -> str:
    directory, name = os.path.split(target)
    return os.path.join(directory, f".{name}{TEMP_SUFFIX}")


def unlink(path: StrPath) -> None:
    """Remove `path` if it is there (`Path.unlink(missing_ok=True)` for strings)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def is_read_only(path: StrPath, mode: int | None = None) -> bool:
    """By the mode bits, so the answer is the same for root (which `os.access` lets write anything)."""
    mode = os.stat(path).st_mode if mode is None else mode
    return not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def link_or_copy(source: StrPath, destination: StrPath) -> None:
    """`destination` (its directory made by the caller) becomes the file `source` names.

    Whatever stands at `destination` is removed first, so a planted link is replaced,
    never written through.
    """
    unlink(destination)
    try:
        os.link(source, destination)
    except OSError:  # another filesystem, or links not allowed: a copy, on disk before the
        _copy(source, destination)  # rename that replaces its original
        fsync_path(os.path.dirname(destination))


def _copy(source: StrPath, destination: StrPath) -> None:
    """A durable copy into a new file, following no link at either end."""
    with open(os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC), "rb") as src:
        info = os.fstat(src.fileno())
        with open(create_new(destination, stat.S_IMODE(info.st_mode)), "wb") as dst:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.utime(dst.fileno(), ns=(info.st_atime_ns, info.st_mtime_ns))
            os.fsync(dst.fileno())


def evict_cached(path: StrPath) -> None:
    """Drop a file's clean pages from the page cache (a hint: its bytes stay on disk).

    For an original that a migration replaces and keeps only as its backup: its
    cached pages are freed at once, and the new file's pages reuse them, so a run
    does not grow the page cache by the old store on top of the new one. Where
    the hint cannot be given (no such call, not a regular file), nothing changes
    but the cache, so that is not an error.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except (AttributeError, OSError):
        pass
    finally:
        os.close(fd)


def fsync_path(path: StrPath) -> None:
    """fsync a file or a directory (its entries) by name."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(
    target: StrPath,
    data: bytes,
    *,
    backup: StrPath | None = None,
    times: tuple[int, int] | None = None,
) -> None:
    """Replace `target` with `data`; readers see the old file or the new one, never a mix.

    `times` (atime, mtime in ns) are given to the new file before it takes the
    target's place (see `write_temp`).
    """
    tmp = temp_path(target)
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o644
    try:
        fd = create_new(tmp, mode)
        try:
            if info is not None:
                keep_mode(fd, mode, created_mode(mode))
                keep_owner(fd, info.st_uid, info.st_gid)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if times is not None:
                os.utime(fd, ns=times)
            os.fsync(fd)
        finally:
            os.close(fd)
        if backup is not None:
            link_or_copy(target, backup)
            fsync_path(os.path.dirname(backup))
        os.replace(tmp, target)
        fsync_path(os.path.dirname(target))
    finally:
        unlink(tmp)


_EUID = os.geteuid()


def _reuse(spare: str, tmp: str, mode: int) -> tuple[int, int] | None:
    """Open a spare inode (a replaced original nobody else links to) as `tmp`: (fd, size), or None.

    Overwriting the blocks of an existing file is far cheaper on ext4 than
    creating a file (a new inode, new blocks). Only an inode that is ours (our
    uid, one link) and that nobody has open is reused; the caller gives it the
    replaced file's permissions and owner.
    """
    try:
        os.rename(spare, tmp)  # same filesystem, or EXDEV: then a new file is made
    except OSError:
        unlink(spare)
        return None
    fd = os.open(tmp, os.O_WRONLY | os.O_NOFOLLOW)
    info = os.fstat(fd)
    if (
        info.st_uid != _EUID
        or info.st_nlink != 1
        or not stat.S_ISREG(info.st_mode)
        or not _unopened(fd)
    ):
        os.close(fd)
        os.unlink(tmp)
        return None
    keep_mode(fd, mode, info.st_mode)
    return fd, info.st_size


def _unopened(fd: int) -> bool:
    """Whether no other descriptor or mapping holds this file (a reader of the old conversation).

    Linux grants a write lease only then. After the check nobody can open it
    any more but through our temporary name, so overwriting it cannot change
    bytes that someone who opened the replaced file is still reading. Where
    leases are unavailable the answer is False: a new file is made.
    """
    try:
        fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
    except (AttributeError, OSError):
        return False
    fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
    return True


def write_temp(
    target: str,
    data: bytes,
    mode: int,
    *,
    spare: str | None = None,
    times: tuple[int, int] | None = None,
    owner: tuple[int, int] | None = None,
) -> tuple[str, int]:
    """Write `data` beside `target` (permissions `mode`); return the temporary path and its open descriptor.

    `spare`, a file of ours on the same filesystem that is no longer needed, is
    reused as the temporary (its old bytes overwritten and cut to length). The
    caller makes it durable (an fsync, or its batch's syncfs) and renames it
    (`commit`), possibly after a batch of others.
    `times` (atime, mtime in ns) are set on it last, so the file that takes the
    target's place carries them from the start; `owner` (uid, gid) is the
    replaced file's, kept where we may (see `keep_owner`).
    """
    tmp = temp_path(target)
    reused = _reuse(spare, tmp, mode) if spare is not None else None
    if reused is None:
        fd, old_size = create_new(tmp, stat.S_IMODE(mode)), 0
    else:
        fd, old_size = reused
    try:
        if reused is None:
            keep_mode(fd, mode, created_mode(mode))  # the bits the umask took
        if owner is not None:
            keep_owner(fd, *owner)
        view = memoryview(data)
        written = 0
        while view:
            n = os.pwrite(fd, view, written)
            written += n
            view = view[n:]
        if old_size > len(data):  # a reused spare that was longer
            os.ftruncate(fd, len(data))
        if times is not None:
            os.utime(fd, ns=times)
    except BaseException:
        os.close(fd)
        unlink(tmp)
        raise
    return tmp, fd


def commit(tmp: str, target: str) -> None:
    """Rename the (fsynced, closed) temporary file over the target."""
    try:
        os.replace(tmp, target)
    except BaseException:
        unlink(tmp)
        raise


def restore(backup: StrPath, target: StrPath) -> None:
    """Put a backed-up file back atomically; the backup itself stays as it was."""
    if not is_regular(backup):
        raise OSError(f"backup {os.fspath(backup)} is not a regular file: not restored")
    tmp = temp_path(target)
    try:
        link_or_copy(backup, tmp)
        os.replace(tmp, target)
        fsync_path(os.path.dirname(target))
    finally:
        unlink(tmp)
