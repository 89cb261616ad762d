"""Run history: `rollback --list`, `rollback --to-start`, `jp-migrate prune`; and every
rollback or downgrade write going through the migration's commit step (journal, `--jobs`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import run_cli
from store_support import b64, generated_store, legacy_events, responses, write_conversation

ROW = re.compile(
    r"^(?P<id>\d{8}T\d{12}Z-\d+)  (?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4})"
    r" +(?P<files>\d+)  (?P<state>applied|partial|rolled back)(?:  (?P<note>.+))?$"
)


def _runs(root: Path) -> list[str]:
    runs = root / ".jp-migrate" / "runs"
    return sorted(p.name for p in runs.iterdir()) if runs.is_dir() else []


def _rows(stdout: str) -> list[dict[str, str]]:
    return [m.groupdict() for m in map(ROW.match, stdout.splitlines()) if m is not None]


def _store(root: Path, *names: str) -> dict[str, Path]:
    return {
        name: write_conversation(root, name, legacy_events(f"call_{i}"))
        for i, name in enumerate(names)
    }


def _journal(root: Path, run_id: str) -> list[dict[str, object]]:
    text = (root / ".jp-migrate" / "runs" / run_id / "journal.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_list_shows_the_runs_newest_first_with_time_files_and_state(tmp_path: Path) -> None:
    root = tmp_path / "store"
    files = _store(root, "17000000001-a")
    assert run_cli("conversations", str(root)).returncode == 0
    files |= _store(root, "17000000002-b", "17000000003-c")
    assert run_cli("conversations", str(root)).returncode == 0
    first, second = _runs(root)

    # One conversation of the second run rolled back: that run is partly undone.
    assert run_cli("rollback", str(files["17000000002-b"].parent)).returncode == 0
    listed = run_cli("rollback", "--list", str(root))
    assert listed.returncode == 0, listed.stderr
    rows = _rows(listed.stdout)
    assert [(r["id"], r["files"], r["state"]) for r in rows] == [
        (second, "2", "partial"),
        (first, "1", "applied"),
    ]
    stamp = datetime.strptime(first.split("-")[0], "%Y%m%dT%H%M%S%fZ").replace(tzinfo=UTC)
    assert rows[1]["time"] == stamp.astimezone().strftime("%Y-%m-%d %H:%M:%S %z")

    assert run_cli("rollback", str(root)).returncode == 0  # the rest of the second run
    states = [r["state"] for r in _rows(run_cli("rollback", "--list", str(root)).stdout)]
    assert states == ["rolled back", "applied"]


def test_list_names_an_interrupted_run_and_says_when_there_is_none(tmp_path: Path) -> None:
    root = tmp_path / "store"
    _store(root, "17000000001-a")
    empty = run_cli("rollback", "--list", str(root))
    assert empty.returncode == 0 and empty.stdout.strip() == "no runs recorded", empty
    assert run_cli("conversations", str(root)).returncode == 0
    (run,) = _runs(root)
    (root / ".jp-migrate" / "runs" / run / "manifest.json").unlink()  # killed before its end
    (row,) = _rows(run_cli("rollback", "--list", str(root)).stdout)
    assert (row["files"], row["state"], row["note"]) == ("1", "applied", "interrupted")


def test_to_start_rolls_back_every_run_newest_first_and_leaves_nothing(tmp_path: Path) -> None:
    """An interrupted run and its rerun (the issue's two-step undo), then a third run of a
    conversation added since: one command puts every byte back and removes every trace."""
    root = tmp_path / "store"
    files = _store(root, "17000000001-a", "17000000002-b")
    originals = {p: p.read_bytes() for p in files.values()}
    assert run_cli("conversations", str(files["17000000001-a"].parent)).returncode == 0
    (interrupted,) = _runs(root)
    (root / ".jp-migrate" / "runs" / interrupted / "manifest.json").unlink()
    assert run_cli("conversations", str(root)).returncode == 0
    added = write_conversation(root, "17000000003-c", legacy_events("call_9"))
    originals[added] = added.read_bytes()
    assert run_cli("conversations", str(root)).returncode == 0
    assert len(_runs(root)) == 3

    dry = run_cli("rollback", "--to-start", "--dry-run", str(root))
    assert dry.returncode == 0, dry.stderr
    assert [line for line in dry.stdout.splitlines() if "would roll back run" in line] == [
        f"would roll back run {run}" for run in reversed(_runs(root))
    ]
    assert len(_runs(root)) == 3 and all(p.read_bytes() != originals[p] for p in originals)

    done = run_cli("rollback", "--to-start", str(root))
    assert done.returncode == 0, done.stderr
    assert {p: p.read_bytes() for p in originals} == originals
    assert sorted(os.listdir(root)) == ["conversations"]  # no .jp-migrate/, no locks/
    assert run_cli("rollback", "--to-start", str(root)).stdout.strip() == "nothing to roll back"


def test_to_start_keeps_the_run_it_could_not_roll_back(tmp_path: Path) -> None:
    root = tmp_path / "store"
    files = _store(root, "17000000001-a", "17000000002-b")
    original_b = files["17000000002-b"].read_bytes()
    assert run_cli("conversations", str(root)).returncode == 0
    edited = files["17000000001-a"].read_text().replace('"done"', '"done, and more"')
    files["17000000001-a"].write_text(edited)  # jp went on with it since
    result = run_cli("rollback", "--to-start", str(root))
    assert result.returncode == 2
    assert "changed since run" in result.stderr
    assert files["17000000001-a"].read_text() == edited
    assert files["17000000002-b"].read_bytes() == original_b
    (row,) = _rows(run_cli("rollback", "--list", str(root)).stdout)
    assert row["state"] == "partial"  # kept: its backup of the refused file is still needed


def test_prune_removes_rolled_back_records_and_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "store"
    _store(root, "17000000001-a")
    assert run_cli("conversations", str(root)).returncode == 0
    _store(root, "17000000002-b")
    assert run_cli("conversations", str(root)).returncode == 0
    first, second = _runs(root)
    assert run_cli("rollback", str(root)).returncode == 0  # the second
    dry = run_cli("prune", "--dry-run", str(root))
    assert dry.returncode == 0, dry.stderr
    assert f"would remove run {second} (rolled back, 1 file)" in dry.stdout
    assert _runs(root) == [first, second]
    done = run_cli("prune", str(root))
    assert done.returncode == 0, done.stderr
    assert f"removed run {second} (rolled back, 1 file)" in done.stdout
    assert _runs(root) == [first]  # applied: kept unless named
    assert run_cli("prune", str(root)).stdout.strip() == "nothing to prune"


def test_prune_of_an_applied_run_says_what_undo_remains(tmp_path: Path) -> None:
    root = tmp_path / "store"
    files = _store(root, "17000000001-a")
    original = files["17000000001-a"].read_bytes()
    assert run_cli("conversations", str(root)).returncode == 0
    (run,) = _runs(root)
    done = run_cli("prune", "--run", run, str(root))
    assert done.returncode == 0, done.stderr
    assert f"removed run {run} (applied, 1 file; its backups are gone: undo with " in done.stdout
    assert "rollback --downgrade" in done.stdout
    assert sorted(os.listdir(root)) == ["conversations"]  # the last run: .jp-migrate/ goes
    assert run_cli("rollback", str(root)).stdout.strip() == "nothing to roll back"
    assert run_cli("rollback", "--downgrade", str(root)).returncode == 0
    assert files["17000000001-a"].read_bytes() == original


def test_prune_all_keeps_a_run_still_in_progress(tmp_path: Path) -> None:
    """A run with no manifest whose process is alive may be writing: never removed. One
    whose pid a process started since has taken is not in progress."""
    root = tmp_path / "store"
    _store(root, "17000000001-a")
    assert run_cli("conversations", str(root)).returncode == 0
    (done,) = _runs(root)
    now = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    live = f"{now}-{os.getpid()}"  # started by this test's process, which is running
    reused = f"20200101T000000000000Z-{os.getpid()}"  # this pid, but the run is older
    for run in (live, reused):
        (root / ".jp-migrate" / "runs" / run).mkdir()
        (root / ".jp-migrate" / "runs" / run / "journal.jsonl").write_text("")
    result = run_cli("prune", "--all", str(root))
    assert result.returncode == 0, result.stderr
    assert f"removed run {done}" in result.stdout
    assert f"removed run {reused}" in result.stdout
    assert f"kept run {live}: not finished, and its process {os.getpid()} is running" in (
        result.stdout
    )
    assert _runs(root) == [live]


def test_prune_refuses_a_linked_state_directory(tmp_path: Path) -> None:
    root = tmp_path / "store"
    _store(root, "17000000001-a")
    outside = tmp_path / "outside"
    (outside / "runs" / "20200101T000000000000Z-1").mkdir(parents=True)
    (root / ".jp-migrate").symlink_to(outside)
    result = run_cli("prune", "--all", str(root))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "symlink" in result.stderr
    assert (outside / "runs" / "20200101T000000000000Z-1").is_dir()


def test_every_rollback_write_is_journaled_in_the_run_it_undoes(tmp_path: Path) -> None:
    root = tmp_path / "store"
    files = _store(root, "17000000001-a", "17000000002-b")
    before = {p: _sha(p) for p in files.values()}
    assert run_cli("conversations", str(root)).returncode == 0
    after = {p: _sha(p) for p in files.values()}
    (run,) = _runs(root)
    assert run_cli("rollback", str(root)).returncode == 0
    undo = [line for line in _journal(root, run) if line["action"] == "rollback"]
    assert sorted((line["path"], line["sha256_before"], line["sha256_after"]) for line in undo) == [
        (p.relative_to(root).as_posix(), after[p], before[p]) for p in sorted(files.values())
    ]
    assert all(line["backup"] is None for line in undo)
    assert sorted(os.listdir(root / ".jp-migrate")) == [".gitignore", "runs"]  # nothing parked


def test_a_downgrade_of_a_no_backup_run_is_journaled_in_it(tmp_path: Path) -> None:
    root = tmp_path / "store"
    files = _store(root, "17000000001-a")
    assert run_cli("conversations", str(root), "--no-backup").returncode == 0
    (run,) = _runs(root)
    assert run_cli("rollback", "--downgrade", str(root)).returncode == 0
    (line,) = [line for line in _journal(root, run) if line["action"] == "rollback"]
    assert line["sha256_after"] == _sha(files["17000000001-a"])
    assert _runs(root) == [run]  # no run of its own: it undid this one


def test_a_downgrade_no_run_covers_is_a_run_of_its_own_and_can_be_undone(tmp_path: Path) -> None:
    """A store migrated by something else: the downgrade keeps what it replaced, so it can
    be undone (and what --force drops is not lost); a bare rollback never picks it."""
    root = tmp_path / "store"
    events = legacy_events()
    events[2]["content"] = [{"type": "text", "text": b64("Check succeeded.")}]
    path = write_conversation(root, "17000000001-a", events)
    migrated = path.read_bytes()
    result = run_cli("rollback", "--downgrade", str(root))
    assert result.returncode == 0, result.stderr
    assert responses(path)[0]["content"] == b64("Check succeeded.")
    (run,) = _runs(root)
    (row,) = _rows(run_cli("rollback", "--list", str(root)).stdout)
    assert (row["id"], row["state"], row["note"]) == (run, "applied", "downgrade")
    assert run_cli("rollback", str(root)).stdout.strip() == "nothing to roll back"
    undone = run_cli("rollback", "--run", run, str(root))
    assert undone.returncode == 0, undone.stderr
    assert path.read_bytes() == migrated


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_rollback_with_jobs_restores_every_byte(tmp_path: Path, jobs: str) -> None:
    store = generated_store(tmp_path, conversations=60, total_bytes=300_000, seed=9)
    paths = sorted(store.glob("conversations/**/events.json"))
    originals = {p: p.read_bytes() for p in paths}
    assert run_cli("conversations", str(store)).returncode == 0
    back = run_cli("rollback", "--jobs", jobs, str(store))
    assert back.returncode == 0, back.stderr
    assert {p: p.read_bytes() for p in paths} == originals
    assert [r["state"] for r in _rows(run_cli("rollback", "--list", str(store)).stdout)] == [
        "rolled back"
    ]


def test_a_rollback_killed_midway_is_partial_and_a_rerun_finishes(tmp_path: Path) -> None:
    """The commit step's own test hook stops a rollback before its 5th rename, as it stops a
    migration: the rollback is one commit path."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import REPO

    store = generated_store(tmp_path, conversations=80, total_bytes=400_000, seed=12)
    paths = sorted(store.glob("conversations/**/events.json"))
    originals = {p: p.read_bytes() for p in paths}
    assert run_cli("conversations", str(store)).returncode == 0
    env = {**os.environ, "JP_MIGRATE_TEST_PAUSE": "before-rename:5"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jp_migrate", "rollback", str(store)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        assert proc.poll() is None and time.monotonic() < deadline, "never paused"
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    restored = sum(p.read_bytes() == originals[p] for p in paths)
    assert restored == 4  # exactly the renames before the pause
    assert [r["state"] for r in _rows(run_cli("rollback", "--list", str(store)).stdout)] == [
        "partial"
    ]
    again = run_cli("rollback", str(store))
    assert again.returncode == 0, again.stderr
    assert {p: p.read_bytes() for p in paths} == originals
    assert not list(store.glob("conversations/**/*.partial"))
    shutil.rmtree(store)
