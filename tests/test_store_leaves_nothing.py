"""What a `conversations` run leaves besides the files it migrates: no `locks/` for a store it
cannot migrate, no lock file after Ctrl-C (JP removes its own), and one line, not one per
conversation, for a store on a read-only filesystem."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from store_support import copy_tree, legacy_events, write_conversation

from jp_migrate.store import api
from jp_migrate.store.api import StoreOptions, run_stores

MESSAGES_ERA = REPO / "tests" / "data" / "corpus" / "jp-store-messages-era"


def _left(root: Path) -> list[str]:
    return sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.name in ("locks", ".jp-migrate")
    )


@pytest.mark.parametrize("flags", [(), ("--check",), ("--dry-run",)])
def test_a_messages_json_store_gets_no_locks_directory(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    copy_tree(MESSAGES_ERA, tmp_path / ".jp")
    done = run_cli("conversations", *flags, str(tmp_path))
    assert done.returncode == 2 and "unsupported layout: messages.json" in done.stderr
    assert _left(tmp_path) == []


def _stopped(pid: int) -> bool:
    listing = subprocess.run(
        ["ps", "-o", "stat=", "-g", str(pid)], capture_output=True, text=True, check=False
    ).stdout.split()
    return any(state.startswith("T") for state in listing)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_leaves_no_lock_file(tmp_path: Path, jobs: str) -> None:
    store = tmp_path / ".jp"
    for i in range(6):
        write_conversation(store, f"1700000000{i}-c", legacy_events())
    env = {**os.environ, "JP_MIGRATE_TEST_PAUSE": "before-rename:1"}
    run = subprocess.Popen(
        [sys.executable, "-m", "jp_migrate", "conversations", "--jobs", jobs, str(tmp_path)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while not _stopped(run.pid):  # stopped by the test hook inside its write phase
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    assert any(p.suffix == ".lock" for p in (store / "locks").iterdir())  # held now
    os.killpg(run.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    os.killpg(run.pid, signal.SIGCONT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130 and "Traceback" not in err, err
    assert sorted(p.name for p in (store / "locks").iterdir()) == []


def test_a_read_only_store_is_one_line_not_one_per_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / ".jp"
    for i in range(5):
        write_conversation(store, f"1700000000{i}-c", legacy_events())
    real = os.statvfs

    class ReadOnly:
        def __init__(self, info: os.statvfs_result) -> None:
            self.f_flag = info.f_flag | os.ST_RDONLY

    def statvfs(path: str | os.PathLike[str]) -> object:
        info = real(path)
        return ReadOnly(info) if Path(path).is_relative_to(tmp_path) else info

    monkeypatch.setattr(api.os, "statvfs", statvfs)
    files = run_stores([tmp_path], StoreOptions()).files
    errors = [f for f in files if f.status == "error"]
    assert len(errors) == 1 and os.strerror(errno.EROFS) in errors[0].message, files
    assert "no conversation of this store migrated" in errors[0].message
    assert not any(f.status == "migrated" for f in files)
    assert _left(tmp_path) == []
