"""`jp_migrate.files`: the one way to write. Links refused, never followed nor replaced;
a file changed since it was read refused; temporaries exclusive and locked; modes kept;
bytes kept; nothing written outside the boundary."""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

import pytest

from jp_migrate.files import edit
from jp_migrate.files.edit import FileBusy, FileChanged, FileExists, NotRegular
from jp_migrate.files.workspace import (
    Boundary,
    NotFollowed,
    OutsideBoundary,
    find_workspace,
    within,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".jp").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return root


def test_replace_keeps_the_mode_and_writes_the_new_bytes(ws: Path) -> None:
    target = ws / "tool.sh"
    target.write_bytes(b"old\r\n")
    target.chmod(0o751)
    boundary = Boundary.of(ws)
    snapshot = edit.read(target, boundary)
    edit.replace(snapshot, b"\xef\xbb\xbfnew\r\n  \n", boundary)
    assert target.read_bytes() == b"\xef\xbb\xbfnew\r\n  \n"  # byte for byte: BOM, CRLF, blanks
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert sorted(p.name for p in ws.iterdir()) == [".jp", "tool.sh"]  # no temporary left


def test_a_new_file_gets_the_umask_s_default_mode(ws: Path) -> None:
    old = os.umask(0o027)
    try:
        edit.create(
            ws / ".jp" / "mcp" / "tools" / "t.toml", b"x", Boundary.of(ws), create_dirs=True
        )
    finally:
        os.umask(old)
    assert stat.S_IMODE((ws / ".jp" / "mcp" / "tools" / "t.toml").stat().st_mode) == 0o640


def test_a_file_changed_since_it_was_read_is_refused(ws: Path) -> None:
    target = ws / "config.toml"
    target.write_bytes(b"a = 1\n")
    boundary = Boundary.of(ws)
    snapshot = edit.read(target, boundary)
    target.write_bytes(b"a = 2\n")  # a hand edit in between (same size)
    with pytest.raises(FileChanged, match="config.toml: changed since it was read"):
        edit.replace(snapshot, b"a = 3\n", boundary)
    assert target.read_bytes() == b"a = 2\n"


def test_same_size_and_mtime_but_other_bytes_is_still_a_change(ws: Path) -> None:
    target = ws / "config.toml"
    target.write_bytes(b"a = 1\n")
    boundary = Boundary.of(ws)
    snapshot = edit.read(target, boundary)
    info = target.stat()
    with open(target, "r+b") as handle:  # in place: same inode, same size
        handle.write(b"b")
    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns))
    with pytest.raises(FileChanged):
        edit.replace(snapshot, b"x", boundary)


def test_a_link_at_the_target_is_refused_not_followed_nor_replaced(ws: Path) -> None:
    victim = ws.parent / "outside" / "victim"
    victim.write_bytes(b"secret")
    (ws / "report.md").symlink_to(victim)
    with pytest.raises(NotFollowed, match="report.md: a symlink"):
        edit.put(ws / "report.md", b"x", Boundary.of(ws))
    assert (ws / "report.md").is_symlink() and victim.read_bytes() == b"secret"


def test_a_link_planted_at_the_temporary_is_refused(ws: Path) -> None:
    hook = ws.parent / "outside" / "pre-commit"
    target = ws / ".jp" / "config.toml"
    target.write_bytes(b"a = 1\n")
    target.chmod(0o755)
    (ws / ".jp" / ".config.toml.jp-migrate.partial").symlink_to(hook)
    boundary = Boundary.of(ws)
    snapshot = edit.read(target, boundary)
    with pytest.raises(NotFollowed, match="temporary: not followed"):
        edit.replace(snapshot, b"evil\n", boundary)
    assert not hook.exists() and target.read_bytes() == b"a = 1\n"


def test_a_directory_link_on_the_way_is_refused(ws: Path) -> None:
    outside = ws.parent / "outside"
    (ws / ".jp" / "mcp").mkdir()
    (ws / ".jp" / "mcp" / "tools").symlink_to(outside, target_is_directory=True)
    with pytest.raises(NotFollowed, match="tools: a symlink"):
        edit.create(ws / ".jp" / "mcp" / "tools" / "t.toml", b"x", Boundary.of(ws))
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(
    "where", ["../outside/x", "/tmp/x-jp-migrate-outside", "a/../../outside/x"]
)
def test_nothing_is_written_outside_the_boundary(ws: Path, where: str) -> None:
    path = where if where.startswith("/") else str(ws / where)
    with pytest.raises(OutsideBoundary):
        edit.put(path, b"x", Boundary.of(ws))
    assert list((ws.parent / "outside").iterdir()) == []
    assert not within(path, ws)


def test_a_second_writer_is_refused_while_the_first_holds_its_temporary(ws: Path) -> None:
    target = ws / "config.toml"
    target.write_bytes(b"a = 1\n")
    boundary = Boundary.of(ws)
    snapshot = edit.read(target, boundary)
    temp = ws / ".config.toml.jp-migrate.partial"
    fd = os.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another run, mid-write
    try:
        with pytest.raises(FileBusy, match="another jp-migrate run is writing it"):
            edit.replace(snapshot, b"b\n", boundary)
    finally:
        os.close(fd)
    edit.replace(snapshot, b"b\n", boundary)  # a killed run's leftover: nobody holds it
    assert target.read_bytes() == b"b\n" and not temp.exists()


def test_create_refuses_what_appeared_meanwhile(ws: Path) -> None:
    (ws / "new.toml").write_bytes(b"someone else's")
    with pytest.raises(FileExists):
        edit.create(ws / "new.toml", b"ours", Boundary.of(ws))
    assert (ws / "new.toml").read_bytes() == b"someone else's"


def test_special_files_and_giants_are_refused_without_waiting(ws: Path) -> None:
    os.mkfifo(ws / "fifo")
    with pytest.raises(NotRegular, match="fifo: not a regular file"):
        edit.read_bounded(ws / "fifo")
    with pytest.raises(NotRegular):
        edit.put(ws / "fifo", b"x", Boundary.of(ws))
    with pytest.raises(NotRegular, match="not a regular file"):
        edit.read_bounded("/dev/zero")
    (ws / "big").write_bytes(b"x" * 101)
    with pytest.raises(NotRegular, match="larger than 100 bytes"):
        edit.read_bounded(ws / "big", limit=100)


def test_the_workspace_is_found_upward(ws: Path) -> None:
    (ws / "src" / "deep").mkdir(parents=True)
    assert find_workspace(ws / "src" / "deep") == ws
    assert find_workspace(ws / ".jp") == ws
    assert find_workspace(ws.parent / "outside") is None
