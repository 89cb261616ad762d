"""A migration with backups does not keep the replaced originals in the page cache.

Each original survives only as its backup (a hard link); its clean pages are
dropped as it is replaced, so a run over a large store does not hold the old
store in memory on top of the new one. Files it does not replace keep theirs.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from pathlib import Path

import pytest
from store_support import legacy_events, write_conversation

from jp_migrate.store.api import StoreOptions, run_stores

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_int,
    ctypes.c_long,
]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_ubyte)]


def resident_pages(path: Path) -> int:
    """How many of the file's pages are in the page cache (mincore on a shared mapping)."""
    size = path.stat().st_size
    pages = -(-size // mmap.PAGESIZE)
    fd = os.open(path, os.O_RDONLY)
    try:
        address = _libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        assert address not in (None, ctypes.c_void_p(-1).value), os.strerror(ctypes.get_errno())
        try:
            vector = (ctypes.c_ubyte * pages)()
            assert _libc.mincore(address, size, vector) == 0, os.strerror(ctypes.get_errno())
            return sum(page & 1 for page in vector)
        finally:
            _libc.munmap(address, size)
    finally:
        os.close(fd)


def _cached_and_clean(path: Path) -> None:
    """Read the file into the cache and write it back, so its pages are clean and resident."""
    path.read_bytes()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@pytest.fixture
def droppable(tmp_path: Path) -> None:
    """Skip where the filesystem keeps clean pages it is asked to drop (tmpfs holds them)."""
    probe = tmp_path / "probe"
    probe.write_bytes(b"x" * 4 * mmap.PAGESIZE)
    _cached_and_clean(probe)
    fd = os.open(probe, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    if resident_pages(probe):
        pytest.skip("this filesystem keeps clean pages in its cache when asked to drop them")
    probe.unlink()


@pytest.mark.usefixtures("droppable")
def test_a_replaced_original_leaves_the_cache_and_other_files_keep_theirs(
    tmp_path: Path,
) -> None:
    legacy = write_conversation(
        tmp_path, "17000000000-legacy", legacy_events(text="line of output\n" * 20_000)
    )
    done = write_conversation(tmp_path, "17000000001-done", [{"type": "chat_request"}] * 2_000)
    original = legacy.read_bytes()
    for path in (legacy, done):
        _cached_and_clean(path)
    assert resident_pages(legacy) > 16 and resident_pages(done) > 16

    run = run_stores([tmp_path], StoreOptions())

    assert {f.conversation: f.status for f in run.files} == {
        "17000000000-legacy": "migrated",
        "17000000001-done": "unchanged",
    }
    [backup] = (tmp_path / ".jp-migrate").rglob("*.events.json")
    assert resident_pages(backup) == 0  # the original, now only its backup
    assert resident_pages(legacy) > 0  # the new file, just written
    assert resident_pages(done) == -(-done.stat().st_size // mmap.PAGESIZE)  # not replaced
    assert backup.read_bytes() == original
