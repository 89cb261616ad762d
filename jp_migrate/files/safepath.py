"""Where the store writes, checked so that a planted link never redirects a write.

The storage root is what the user named; everything the toolkit creates below
it (state directory, run directories, backups, locks, temporaries) is made and
checked one component at a time with `lstat`, and files are created
exclusively without following links. A symlink or a non-directory where a
directory belongs is refused with one line naming it.
"""

from __future__ import annotations

import os
import re
import stat

from jp_migrate.errors import JpMigrateError

StrPath = str | os.PathLike[str]

CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafePath(JpMigrateError, OSError):
    """A path under the storage root is not what the toolkit may write through (an OSError
    too: whoever reports a failed write reports this one alike)."""


def _checked(path: str) -> None:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise UnsafePath(
            f"{path}: a symlink where jp-migrate keeps its own directory: not followed"
        )
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"{path}: not a directory")


def directory(root: StrPath, *parts: str, create: bool = True) -> str:
    """`root/part/...`, each part a real directory (made when `create`), never a link."""
    path = os.fspath(root)
    for part in parts:
        path = os.path.join(path, part)
        if create:
            try:
                os.mkdir(path)
            except FileExistsError:
                pass
        _checked(path)
    return path


def exists_as_directory(root: StrPath, *parts: str) -> bool:
    """Whether `root/part/...` is there; a link or a file on the way is refused, not followed."""
    try:
        directory(root, *parts, create=False)
    except FileNotFoundError:
        return False
    return True


def create_new(path: StrPath, mode: int = 0o644) -> int:
    """A new file at `path`, created exclusively. A file left there (a killed run's) is
    removed first; a link there is refused (UnsafePath), neither followed nor replaced."""
    try:
        return os.open(path, CREATE, mode)
    except FileExistsError:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise UnsafePath(
                f"{os.fspath(path)}: a symlink (to {os.readlink(path)}) where jp-migrate "
                "writes: not followed, nothing written"
            ) from None
        os.unlink(path)
    return os.open(path, CREATE, mode)


def write_new(path: StrPath, data: bytes, mode: int = 0o644) -> None:
    fd = create_new(path, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def is_regular(path: StrPath) -> bool:
    """A regular file, by `lstat` (a link to one is not)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


# A conversation's events.json, relative to its storage root, as records name it.
_RECORDED = re.compile(r"conversations/(?:\.archive/)?(?P<name>[^/]+)/events\.json", re.DOTALL)


def recorded_path(relative: str) -> str:
    """A path read from a run record, accepted only where the store keeps conversations."""
    match = _RECORDED.fullmatch(relative)
    if match is None or match["name"] in (".", "..") or "\0" in relative:
        raise UnsafePath(f"{relative!r}: not a conversation of this store")
    return relative
