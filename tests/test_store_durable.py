"""A batch of migrated files is on disk before any of them is renamed into place.

Where the filesystem takes it (Linux 5.8+, ext4, xfs, btrfs, f2fs, tmpfs), one
syncfs per batch does that for the files, their backups' links and the journal;
elsewhere every temporary and the journal are fsynced. Either way: nothing is
renamed before its bytes are durable, and a failed sync leaves every target of
the batch untouched."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from store_support import legacy_events, responses, snapshot, write_conversation

from jp_migrate.files import durable
from jp_migrate.store import commit, manifest
from jp_migrate.store.api import StoreOptions, run_stores

NAMES = [f"170000000{i:02d}-conversation" for i in range(5)]

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="syncfs is Linux's")


def _store(tmp_path: Path) -> dict[str, Path]:
    return {name: write_conversation(tmp_path, name, legacy_events()) for name in NAMES}


class Calls:
    """The order of the writes, syncs, journal appends and renames of a run."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.log: list[tuple[str, str]] = []
        self.synced_fds: list[int] = []
        self._wrap(monkeypatch, commit, "write_temp", "write", lambda a, k: a[0])
        self._wrap(monkeypatch, commit, "commit", "rename", lambda a, k: a[1])
        self._wrap(monkeypatch, manifest, "append_journal", "journal", self._journal)
        real_fsync = os.fsync
        real_syncfs = durable.syncfs

        def fsync(fd: int) -> None:
            self.log.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
            real_fsync(fd)

        def syncfs(fd: int) -> None:
            self.log.append(("syncfs", os.readlink(f"/proc/self/fd/{fd}")))
            real_syncfs(fd)

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(durable, "syncfs", syncfs)

    @staticmethod
    def _journal(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        return f"fsync={kwargs.get('fsync', True)}"

    def _wrap(
        self,
        monkeypatch: pytest.MonkeyPatch,
        module: Any,
        name: str,
        kind: str,
        subject: Callable[[tuple[Any, ...], dict[str, Any]], str],
    ) -> None:
        original = getattr(module, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            self.log.append((kind, str(subject(args, kwargs))))
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, call)

    def index(self, kind: str, subject: str | None = None) -> list[int]:
        return [
            i
            for i, (k, s) in enumerate(self.log)
            if k == kind and (subject is None or s.startswith(subject))
        ]


def _batchable(monkeypatch: pytest.MonkeyPatch, answer: Callable[[str], bool]) -> None:
    monkeypatch.setattr(durable, "batchable", lambda path, device=None: answer(str(path)))


@linux
def test_one_syncfs_makes_a_batch_durable_before_any_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _store(tmp_path)
    _batchable(monkeypatch, lambda path: True)
    calls = Calls(monkeypatch)

    run = run_stores([tmp_path], StoreOptions())

    assert {f.status for f in run.files} == {"migrated"}
    syncs = calls.index("syncfs")
    assert len(syncs) == 1  # five files, one batch, one filesystem
    renames = calls.index("rename")
    assert len(renames) == len(NAMES)
    journal = calls.index("journal")
    # The files, their backups and the journal naming them are durable before any rename:
    # one sync, no fsync of any file of its own.
    assert max(calls.index("write")) < journal[0] < syncs[0] < min(renames)
    assert calls.log[journal[0]][1] == "fsync=False"
    assert calls.index("fsync") == []
    for path in paths.values():
        assert responses(path) and all(isinstance(r["content"], list) for r in responses(path))


@linux
def test_a_filesystem_without_syncfs_gets_an_fsync_per_file_and_for_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(tmp_path)
    _batchable(monkeypatch, lambda path: False)
    calls = Calls(monkeypatch)

    run = run_stores([tmp_path], StoreOptions())

    assert {f.status for f in run.files} == {"migrated"}
    assert calls.index("syncfs") == []
    temporaries = calls.index("fsync", str(tmp_path / "conversations"))
    assert len(temporaries) == len(NAMES)
    assert max(temporaries) < min(calls.index("rename"))
    assert calls.index("journal")[0] < min(calls.index("rename"))
    assert calls.log[calls.index("journal")[0]][1] == "fsync=True"


@linux
def test_a_batch_syncs_each_filesystem_it_watched_once_and_reports_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Say the journal's filesystem is not one to syncfs: it gets an fsync (watch says False)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _batchable(monkeypatch, lambda path: not path.endswith("b"))
    synced: list[str] = []
    monkeypatch.setattr(
        durable, "syncfs", lambda fd: synced.append(os.readlink(f"/proc/self/fd/{fd}"))
    )
    batch = durable.BatchSync()
    assert batch.watch(str(tmp_path / "a"), device=1) is True
    assert batch.watch(str(tmp_path / "a" / ".."), device=1) is True  # known: not asked again
    assert batch.watch(str(tmp_path / "b"), device=2) is False
    batch.sync()
    assert synced == [str(tmp_path / "a")]
    batch.close()
    batch.sync()
    assert synced == [str(tmp_path / "a")]  # closed: nothing left to sync


@linux
def test_a_failed_sync_leaves_every_file_of_the_batch_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _store(tmp_path)
    before = snapshot(tmp_path)
    _batchable(monkeypatch, lambda path: True)

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, f"{os.strerror(errno.EIO)} (syncing the batch to disk)")

    monkeypatch.setattr(durable, "syncfs", failing)

    run = run_stores([tmp_path], StoreOptions())

    assert [f.status for f in run.files] == ["error"] * len(NAMES)
    directory = tmp_path / "conversations" / NAMES[0]
    assert {f.message for f in run.files} == {
        f"syncing the batch to disk at {directory}: Input/output error (syncing the batch to disk)"
    }
    assert snapshot(tmp_path) == before  # not a byte, not an mtime
    leftovers = [p for p in tmp_path.rglob("*") if p.name.endswith(".jp-migrate.partial")]
    assert leftovers == []
    # No record of a run that changed nothing: its journal named the files and their
    # backups were linked, then the run ended (a rollback had "rolled back" it, and
    # refused a file jp changed since).
    assert not list((tmp_path / ".jp-migrate").glob("runs/*"))
    rollback = run_cli("rollback", str(tmp_path))
    assert "nothing to roll back" in (rollback.stdout + rollback.stderr).lower(), rollback
    monkeypatch.undo()
    rerun = run_stores([tmp_path], StoreOptions())  # a rerun finishes the job
    assert {f.status for f in rerun.files} == {"migrated"}
    assert all(isinstance(r["content"], list) for p in paths.values() for r in responses(p))


@linux
def test_the_cli_reports_a_failed_sync_on_one_line_and_exits_2(tmp_path: Path) -> None:
    """A real run, with syncfs failing in the process (injected by a sitecustomize)."""
    _store(tmp_path)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(
        "import errno, os\n"
        "from jp_migrate.files import durable\n"
        "durable.batchable = lambda path, device=None: True\n"
        "def syncfs(fd):\n"
        "    raise OSError(errno.EIO, os.strerror(errno.EIO) + ' (syncing the batch to disk)')\n"
        "durable.syncfs = syncfs\n"
    )
    env = {**os.environ, "PYTHONPATH": str(hook)}
    done = subprocess.run(
        [sys.executable, "-m", "jp_migrate", "conversations", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "syncing the batch to disk" in line]
    assert len(errors) == len(NAMES)
    assert all("events.json" in line for line in errors)


@linux
def test_the_filesystem_type_is_the_one_stat_reads(tmp_path: Path) -> None:
    shown = subprocess.run(
        ["stat", "-f", "--format=%t", str(tmp_path)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert durable.filesystem_type(str(tmp_path)) == int(shown, 16)


@pytest.mark.parametrize(
    ("release", "numbers", "recent"),
    [
        ("6.1.0-13-amd64", (6, 1, 0), True),
        ("5.17.0", (5, 17, 0), True),
        ("5.16.20-generic", (5, 16, 20), False),  # syncfs ignored a failed journal commit
        ("5.8.0", (5, 8, 0), False),
        ("4.19.0+", (4, 19), False),
        ("5.15.153.1-microsoft-standard-WSL2", (5, 15, 153, 1), False),
    ],
)
def test_the_kernel_release_is_read_up_to_its_first_non_number(
    release: str, numbers: tuple[int, ...], recent: bool
) -> None:
    assert durable._kernel(release) == numbers
    assert (durable._kernel(release) >= durable.SYNCFS_KERNEL) is recent


def test_only_listed_filesystems_on_a_recent_kernel_take_syncfs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overlayfs, ext4 = 0x794C7630, 0xEF53
    kinds = {"a": overlayfs, "b": ext4}
    monkeypatch.setattr(durable, "filesystem_type", lambda path: kinds[Path(path).name])
    monkeypatch.setattr(durable, "_SYNCFS_KERNEL", True)
    assert durable.batchable("x/a", device=1) is False
    assert durable.batchable("x/b", device=2) is True
    monkeypatch.setattr(durable, "_SYNCFS_KERNEL", False)  # before 5.8, or not Linux
    assert durable.batchable("x/b", device=2) is False


def test_loading_the_store_runs_no_program() -> None:
    """libc is found in the process itself: `ctypes.util.find_library` would run `ldconfig`
    (or a compiler) at every start of a migration."""
    code = (
        "import subprocess\n"
        "def refuse(*args, **kwargs):\n"
        "    raise SystemExit(f'started a program: {args[1] if len(args) > 1 else kwargs}')\n"
        "subprocess.Popen.__init__ = refuse\n"
        "from jp_migrate.files import durable\nfrom jp_migrate.store import migrate, workers\n"
        "print(durable.filesystem_type('.') is not None or not durable._LIBC)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
