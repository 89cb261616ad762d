"""The `.jp` workspace a command works in, and the boundary of what it may write.

The workspace is found upward from a directory, as git finds `.git` and ruff
its config: the directory itself, or the nearest parent, holding `.jp/`.

A `Boundary` is a directory nothing is written outside of: the workspace root,
a storage root, the repository `check` runs in, or, for a path the user named on
the command line, that path's own directory. Directories below it are opened
one component at a time relative to the one above (`openat`), never following a
link, so what a write reaches is what the path says, whatever is planted or
swapped on the way.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from jp_migrate.errors import JpMigrateError

JP_DIR = ".jp"
ID_FILE = ".id"  # `.jp/.id`: JP's workspace id, its last line
StrPath = str | os.PathLike[str]

_ID = re.compile(r"[0-9a-z]{5}")  # jp_workspace::Id: 5 characters of 0-9a-z
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


class OutsideBoundary(JpMigrateError):
    """A path jp-migrate would write lies outside the directory it may write in."""


class NotFollowed(JpMigrateError):
    """A link (or a non-directory) where jp-migrate writes: refused, never followed."""


def find_workspace(start: StrPath) -> Path | None:
    """The workspace root for `start`: it, or its nearest parent, holding a `.jp/` directory;
    a `.jp` directory named itself gives its parent. None when there is none."""
    directory = Path(os.path.abspath(start))
    if directory.name == JP_DIR and directory.is_dir():
        return directory.parent
    for candidate in (directory, *directory.parents):
        if (candidate / JP_DIR).is_dir():
            return candidate
    return None


def workspace_root(start: StrPath) -> Path:
    """`find_workspace`, or one line saying there is none."""
    found = find_workspace(start)
    if found is None:
        raise JpMigrateError(f"{start}: no {JP_DIR}/ directory here or in any parent")
    return found


def workspace_id(storage: StrPath) -> str | None:
    """The id in `<storage>/.id` (its last line, JP's `Id::load`), or None when absent or
    malformed."""
    try:
        lines = Path(storage, ID_FILE).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    last = lines[-1].strip() if lines else ""
    return last if _ID.fullmatch(last) else None


def within(path: StrPath, root: StrPath) -> bool:
    """Whether `path` lies at or under `root`, by their names (`..` resolved in the text);
    `root` is also taken by its real path, so a root reached through a link still counts."""
    target = os.path.normpath(os.path.abspath(path))
    for base in {os.path.abspath(root), os.path.realpath(root)}:
        if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


@dataclass(frozen=True)
class Boundary:
    """The directory `root` and everything under it, reached without following a link."""

    root: str  # absolute

    @classmethod
    def of(cls, root: StrPath) -> Boundary:
        return cls(os.path.abspath(root))

    @classmethod
    def named(cls, path: StrPath) -> Boundary:
        """For a file the user named on the command line: its own directory, as they spelt it."""
        return cls(os.path.dirname(os.path.abspath(path)))

    def contains(self, path: StrPath) -> bool:
        return within(path, self.root)

    def parts(self, path: StrPath) -> tuple[str, ...]:
        """`path`'s components below the root; OutsideBoundary when it is not under it."""
        target = os.path.normpath(os.path.abspath(path))
        for base in {self.root, os.path.realpath(self.root)}:
            if target == base:
                return ()
            prefix = base.rstrip(os.sep) + os.sep
            if target.startswith(prefix):
                return tuple(target[len(prefix) :].split(os.sep))
        raise OutsideBoundary(f"{path}: outside {self.root}: jp-migrate writes nothing there")

    def open_directory(self, directory: StrPath, *, create: bool = False) -> int:
        """A descriptor of `directory` (made when `create`), each component below the root
        opened without following a link. The caller closes it."""
        parts = self.parts(directory)
        fd = os.open(self.root, _DIRECTORY)
        try:
            shown = self.root
            for part in parts:
                shown = os.path.join(shown, part)
                if create:
                    try:
                        os.mkdir(part, 0o777, dir_fd=fd)
                    except FileExistsError:
                        pass
                try:
                    below = os.open(part, _DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                except OSError as exc:
                    raise _refusal(fd, part, shown, exc) from None
                os.close(fd)
                fd = below
        except BaseException:
            os.close(fd)
            raise
        return fd


def _refusal(fd: int, name: str, shown: str, exc: OSError) -> Exception:
    """Why a directory on the way could not be opened, in one line."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        try:
            info = os.lstat(name, dir_fd=fd)
        except OSError:
            return exc
        if stat.S_ISLNK(info.st_mode):
            return NotFollowed(
                f"{shown}: a symlink (to {os.readlink(name, dir_fd=fd)}): not followed "
                "(jp-migrate never writes through a link)"
            )
        return NotFollowed(f"{shown}: not a directory")
    return OSError(exc.errno, exc.strerror, shown)
