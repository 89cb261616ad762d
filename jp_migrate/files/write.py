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

import os
import shutil
import stat

from jp_migrate.files.attrs import created_mode, keep_mode, keep_owner
from jp_migrate.files.safepath import create_new, is_regular, write_new

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

    For an original that a migration replaces: its cached pages are freed at once
    and the new file's pages reuse them, so a run does not grow the page cache by
    the old store on top of the new one. Where the hint cannot be given, nothing
    changes but the cache, so that is not an error.
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


def atomic_write(target: StrPath, data: bytes, *, times: tuple[int, int] | None = None) -> None:
    """Replace `target` with `data`; readers see the old file or the new one, never a mix.

    `times` (atime, mtime in ns) are given to the new file before it takes the
    target's place (see `write_temp`).
    """
    tmp = temp_path(target)
    info = os.stat(target, follow_symlinks=False)
    try:
        fd = write_temp(tmp, data, info.st_mode, times=times, owner=(info.st_uid, info.st_gid))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        fsync_path(os.path.dirname(target))
    finally:
        unlink(tmp)


def write_temp(
    tmp: str,
    data: bytes,
    mode: int,
    *,
    times: tuple[int, int] | None = None,
    owner: tuple[int, int] | None = None,
) -> int:
    """Write `data` to a new file `tmp` (permissions `mode`); return its open descriptor.

    The caller makes it durable (an fsync, or its batch's syncfs) and renames it
    (`commit`). `times` (atime, mtime in ns) are set on it last, so the file that
    takes the target's place carries them from the start; `owner` (uid, gid) is the
    replaced file's, kept where we may (see `keep_owner`).
    """
    fd = create_new(tmp, stat.S_IMODE(mode))
    try:
        keep_mode(fd, mode, created_mode(mode))  # the bits the umask took
        if owner is not None:
            keep_owner(fd, *owner)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if times is not None:
            os.utime(fd, ns=times)
    except BaseException as exc:
        os.close(fd)
        unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # name the file (a full disk)
            raise OSError(exc.errno, exc.strerror, tmp) from None
        raise
    return fd


def install(tmp: StrPath, target: StrPath, data: bytes) -> None:
    """`target` (in a directory the caller checked) replaced by `data` written to the new
    file `tmp` beside it; `tmp` is removed whatever happens. Not fsynced: for records that
    a journal already makes durable."""
    try:
        write_new(tmp, data)
        os.replace(tmp, target)
    finally:
        unlink(tmp)


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
