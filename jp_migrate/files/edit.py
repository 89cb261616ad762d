"""Read a file, change it, and replace it only if it is still what was read.

    snapshot = read(path, boundary)          # the bytes, and what identifies them
    replace(snapshot, new_bytes, boundary)   # or FileChanged: nothing written
    create(path, data, boundary)             # a new file, or FileExists: nothing written
    put(path, data, boundary)                # create or replace (a report, an import)

git's lockfile discipline: the temporary `.<name>.jp-migrate.partial` is created
exclusively in the target's own directory (never through a link) and locked
while it is written, so two jp-migrate runs never write one file at once; the
second is refused. Before the rename, the target is compared with the snapshot
(device, inode, size, mtime and a sha256 of its bytes): an edit made by hand in
between is refused, never overwritten. The new file takes the old one's mode
and, where it may, its owner; a new file gets the umask's default mode.

Bytes are bytes: nothing here decodes, translates newlines or strips a BOM.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import stat
from dataclasses import dataclass

from jp_migrate.errors import JpMigrateError
from jp_migrate.files.attrs import keep_mode, keep_owner
from jp_migrate.files.workspace import Boundary, NotFollowed, StrPath
from jp_migrate.files.write import TEMP_SUFFIX

READ_LIMIT = 16 * 1024 * 1024  # a config, a case file or a tool source; not a store
NEW_FILE_MODE = 0o666  # less the umask, as an editor's new file

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC  # O_NONBLOCK: a FIFO opened never blocks
_CREATE = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class FileChanged(JpMigrateError):
    """The file changed between the read and the write: nothing was written."""


class FileBusy(JpMigrateError):
    """Another jp-migrate is writing the file now: nothing was written."""


class FileExists(JpMigrateError):
    """A file was to be created where one now exists: nothing was written."""


class NotRegular(JpMigrateError, OSError):
    """Not a regular file (a FIFO, a device, a directory) or larger than allowed: not read.
    An OSError too (its `strerror` the reason), for callers that report every failure to
    read a file alike."""

    def __init__(self, path: str, reason: str) -> None:
        OSError.__init__(self, errno.EINVAL, reason, path)

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


@dataclass(frozen=True)
class Snapshot:
    """A file as it was read: its bytes and what tells whether it is still that file."""

    path: str
    data: bytes
    device: int
    inode: int
    size: int
    mtime_ns: int
    mode: int
    uid: int
    gid: int
    links: int  # names of the inode (a rewrite splits a hard link)
    digest: str

    def same(self, info: os.stat_result, data: bytes) -> bool:
        return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) == (
            self.device,
            self.inode,
            self.size,
            self.mtime_ns,
        ) and hashlib.sha256(data).hexdigest() == self.digest


def _read_fd(fd: int, shown: str, limit: int) -> tuple[os.stat_result, bytes]:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegular(shown, "not a regular file: not read")
    if info.st_size > limit:
        raise NotRegular(shown, f"larger than {limit} bytes: not read")
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:  # grew while read (or lied about its size: /proc)
            raise NotRegular(shown, f"larger than {limit} bytes: not read")
    return info, b"".join(chunks)


def _snapshot(path: str, info: os.stat_result, data: bytes) -> Snapshot:
    return Snapshot(
        path,
        data,
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_mode,
        info.st_uid,
        info.st_gid,
        info.st_nlink,
        hashlib.sha256(data).hexdigest(),
    )


def read_bounded(path: StrPath, *, limit: int = READ_LIMIT) -> bytes:
    """A file's bytes, for reading only (links followed, as JP follows them): a FIFO, a
    device or a file over `limit` bytes is refused with one line, never waited on."""
    shown = os.fspath(path)
    fd = os.open(path, _READ)
    try:
        return _read_fd(fd, shown, limit)[1]
    finally:
        os.close(fd)


def _open_name(dir_fd: int, name: str, shown: str, flags: int = _READ, what: str = "") -> int:
    """`name` in `dir_fd` opened with `flags`, a link refused (not followed); an error
    names `shown`."""
    try:
        return os.open(name, flags | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotFollowed(
                f"{shown}: a symlink (to {os.readlink(name, dir_fd=dir_fd)}){what}: not followed "
                "(jp-migrate never writes through a link)"
            ) from None
        raise OSError(exc.errno, exc.strerror, shown) from None


def read(path: StrPath, boundary: Boundary, *, limit: int = READ_LIMIT) -> Snapshot:
    """`path` (inside `boundary`, reached without a link) read whole, for a later `replace`."""
    shown = os.fspath(path)
    dir_fd = boundary.open_directory(os.path.dirname(os.path.abspath(path)))
    try:
        fd = _open_name(dir_fd, os.path.basename(shown), shown)
        try:
            info, data = _read_fd(fd, shown, limit)
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)
    return _snapshot(shown, info, data)


def temp_name(name: str) -> str:
    return f".{name}{TEMP_SUFFIX}"


def _claim(dir_fd: int, temp: str, shown: str, mode: int) -> int:
    """Create the temporary exclusively and lock it: the lock says a run is writing it. A
    leftover nobody holds (a killed run's) is removed; a link there is refused."""
    for _ in range(3):
        try:
            fd = os.open(temp, _CREATE, mode, dir_fd=dir_fd)
        except FileExistsError:
            _clear_leftover(dir_fd, temp, shown)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.stat(temp, dir_fd=dir_fd, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                return fd
        except (BlockingIOError, FileNotFoundError):
            pass  # taken for a leftover and removed by another run in between: try again
        os.close(fd)
    raise FileBusy(f"{shown}: another jp-migrate run is writing it: not written")


def _clear_leftover(dir_fd: int, temp: str, shown: str) -> None:
    where = os.path.join(os.path.dirname(shown), temp)
    flags = os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = _open_name(dir_fd, temp, where, flags, " where jp-migrate writes its temporary")
    except FileNotFoundError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(where, "not a regular file where jp-migrate writes: nothing written")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FileBusy(f"{shown}: another jp-migrate run is writing it: not written") from None
        if os.stat(temp, dir_fd=dir_fd, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
            os.unlink(temp, dir_fd=dir_fd)  # still locked by us while the name goes
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _unlink(name: str, dir_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


def _still(dir_fd: int, name: str, snapshot: Snapshot) -> None:
    """FileChanged unless `name` is still the file the snapshot read."""
    changed = FileChanged(f"{snapshot.path}: changed since it was read: not written")
    try:
        fd = os.open(name, _READ | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        raise changed from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) != (
            snapshot.device,
            snapshot.inode,
            snapshot.size,
            snapshot.mtime_ns,
        ):
            raise changed
        _, data = _read_fd(fd, snapshot.path, max(snapshot.size, 1) * 2)
    except NotRegular:
        raise changed from None
    finally:
        os.close(fd)
    if not snapshot.same(info, data):
        raise changed


def _place(
    path: StrPath, data: bytes, boundary: Boundary, snapshot: Snapshot | None, create_dirs: bool
) -> None:
    shown = os.fspath(path)
    name = os.path.basename(shown)
    temp = temp_name(name)
    dir_fd = boundary.open_directory(os.path.dirname(os.path.abspath(path)), create=create_dirs)
    try:
        mode = stat.S_IMODE(snapshot.mode) if snapshot is not None else NEW_FILE_MODE
        fd = _claim(dir_fd, temp, shown, mode)
        try:
            try:
                if snapshot is not None:
                    keep_mode(fd, snapshot.mode, os.fstat(fd).st_mode)  # the bits the umask took
                    keep_owner(fd, snapshot.uid, snapshot.gid)
                _write_all(fd, data)
                os.fsync(fd)
                if snapshot is not None:
                    _still(dir_fd, name, snapshot)
                    os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                else:
                    _link_new(dir_fd, temp, name, shown)
            finally:
                _unlink(temp, dir_fd)  # gone already once renamed; else not left behind
            os.fsync(dir_fd)
        except OSError as exc:
            if exc.filename is None:  # name the file (a full disk)
                raise OSError(exc.errno, exc.strerror, shown) from None
            raise
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)


def _link_new(dir_fd: int, temp: str, name: str, shown: str) -> None:
    """The temporary takes a name nothing holds: a hard link fails if anything is there."""
    try:
        os.link(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd, follow_symlinks=False)
    except FileExistsError:
        raise FileExists(f"{shown}: created by someone else meanwhile: not written") from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        # No hard links here: a rename, once nothing is seen there.
        try:
            os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            return
        raise FileExists(f"{shown}: created by someone else meanwhile: not written") from None


def replace(snapshot: Snapshot, data: bytes, boundary: Boundary) -> None:
    """Replace the file `snapshot` read with `data`, only if it is still what was read."""
    _place(snapshot.path, data, boundary, snapshot, False)


def create(path: StrPath, data: bytes, boundary: Boundary, *, create_dirs: bool = False) -> None:
    """A new file at `path`; FileExists when anything is there (a link included)."""
    shown = os.fspath(path)
    _place(shown, data, boundary, None, create_dirs)


def put(path: StrPath, data: bytes, boundary: Boundary, *, create_dirs: bool = False) -> None:
    """`path` made to hold `data`: created, or replaced when it is a regular file (compared
    first, as `replace` does); a link or a special file there is refused."""
    shown = os.fspath(path)
    try:
        snapshot: Snapshot | None = read(shown, boundary, limit=1 << 40)
    except NotRegular:
        raise NotRegular(shown, "not a regular file: nothing written there") from None
    except FileNotFoundError:
        snapshot = None
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise
        snapshot = None
    if snapshot is None:
        create(shown, data, boundary, create_dirs=create_dirs)
    else:
        replace(snapshot, data, boundary)
