"""What the store commands say where a newcomer tripped: the undo hint of a `--no-backup`
run, an interrupt before anything was written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO, run_cli
from store_support import generated_store, legacy_events, write_conversation


def test_a_no_backup_run_names_the_downgrade_as_its_undo_and_what_it_gives_back(
    tmp_path: Path,
) -> None:
    root = tmp_path / "s"
    path = write_conversation(root, "17000000001-a", legacy_events(text="plain", encode=False))
    original = path.read_bytes()
    result = run_cli("conversations", str(root), "--no-backup")
    assert result.returncode == 0, result.stderr
    (run,) = (root / ".jp-migrate" / "runs").iterdir()
    assert result.stdout.splitlines()[-1] == (
        f"run recorded in {run} (no backup kept; undo: jp-migrate rollback --downgrade "
        f"{root}, which converts the responses back to legacy strings of the same text)"
    )
    undo = run_cli("rollback", "--downgrade", str(root))  # the hint, as printed, works
    assert undo.returncode == 0, undo.stderr
    assert path.read_bytes() == original


def _paused(store: Path, rename: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "jp_migrate", "conversations", str(store)],
        cwd=REPO,
        env={**os.environ, "JP_MIGRATE_TEST_PAUSE": f"before-rename:{rename}"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        assert proc.poll() is None and time.monotonic() < deadline, "never paused"
        time.sleep(0.01)
    return proc


def test_ctrl_c_before_the_first_rename_says_nothing_was_written_and_offers_no_undo(
    tmp_path: Path,
) -> None:
    """The first batch is journaled and its backups linked, nothing renamed yet."""
    store = generated_store(tmp_path, conversations=40, total_bytes=200_000, seed=3)
    files = sorted(store.glob("conversations/**/events.json"))
    before = {p: p.read_bytes() for p in files}
    proc = _paused(store, 1)
    proc.send_signal(signal.SIGINT)
    proc.send_signal(signal.SIGCONT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert last == "interrupted: 0 of 40 conversations migrated, nothing was written"
    assert "undo" not in err
    assert {p: p.read_bytes() for p in files} == before
    assert not list(store.glob(".jp-migrate/runs/*"))  # no record of a run that wrote nothing
