"""Crash safety: a run killed or stopped inside its write phase, at points chosen by a test
hook (`JP_MIGRATE_TEST_PAUSE=before-rename:N` stops the process, SIGSTOP, just before its
N-th rename: temporaries written, the batch journaled, backups linked), never by timing.

After the kill every events.json is whole (wholly legacy or wholly migrated); after the
next run, or a rollback, nothing is left that was not there before: no temporary, no
backup its run's record does not name, no lock file; a rerun with any --jobs completes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bridge_support import live_processes
from conftest import REPO, run_cli
from store_support import generated_store

CONVERSATIONS = 240  # seven batches in one process, three or more in one of two workers


def _state(path: Path) -> str:
    events = json.loads(path.read_bytes())  # raises if a kill left a torn file
    kinds = {
        "migrated" if isinstance(e["content"], list) else "legacy"
        for e in events
        if e.get("type") == "tool_call_response"
    }
    assert len(kinds) <= 1, f"{path} is partly migrated: {kinds}"
    return kinds.pop() if kinds else "none"


def _stopped(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "T"


def _family(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [pid, *map(int, children.read_text().split())]
    except OSError:
        return [pid]


def _start_paused(store: Path, jobs: str, rename: int) -> subprocess.Popen[bytes]:
    """A run started in a session of its own, returned once its writing processes (the
    run itself, or both workers) stopped themselves at the hook (before their `rename`-th
    rename)."""
    env = {**os.environ, "JP_MIGRATE_TEST_PAUSE": f"before-rename:{rename}"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jp_migrate", "conversations", str(store), "--jobs", jobs],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while sum(_stopped(pid) for pid in _family(proc.pid)) < int(jobs):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"the run never reached the pause point: {err.decode()}")
        time.sleep(0.01)
    return proc


def _stop(proc: subprocess.Popen[bytes], how: str) -> str:
    """Kill the paused run: `kill` (SIGKILL), or a stop signal to the whole process group
    (a terminal's Ctrl-C, `timeout`'s SIGTERM), then SIGCONT to deliver it. Its stderr."""
    if how == "kill":
        proc.kill()
    else:
        os.killpg(proc.pid, signal.SIGINT if how == "ctrl-c" else signal.SIGTERM)
        os.killpg(proc.pid, signal.SIGCONT)
    _, err = proc.communicate(timeout=60)
    if how != "kill":
        signum = signal.SIGINT if how == "ctrl-c" else signal.SIGTERM
        assert proc.returncode == 128 + signum, err.decode()
        assert "Traceback" not in err.decode()
    return err.decode()


def _leftovers(store: Path) -> list[str]:
    """What a run must not leave: temporaries, lock files, backups no record names."""
    found = [str(p) for p in store.glob("conversations/**/.*.partial")]
    found += [str(p) for p in store.glob("conversations/**/*.partial")]
    found += [str(p) for p in (store / "locks").glob("*")] if (store / "locks").is_dir() else []
    for run in (store / ".jp-migrate" / "runs").glob("*"):
        named: set[str] = set()
        manifest = run / "manifest.json"
        if manifest.exists():
            named |= {f["backup"] for f in json.loads(manifest.read_text())["files"] if f["backup"]}
        journal = run / "journal.jsonl"
        if journal.exists():
            lines = journal.read_text().splitlines()
            named |= {json.loads(line)["backup"] for line in lines if json.loads(line)["backup"]}
        for backup in (run / "backup").rglob("*"):
            if backup.is_file() and backup.relative_to(run).as_posix() not in named:
                found.append(str(backup))
    return found


def _no_process_left(store: Path) -> None:
    """The run's processes are gone (a worker is killed with its parent)."""
    deadline = time.monotonic() + 30
    while live_processes(str(store)):
        assert time.monotonic() < deadline, "a process of the killed run is still there"
        time.sleep(0.05)


CASES = [
    ("kill", "1", 1),
    ("kill", "1", 40),
    ("kill", "2", 5),
    ("kill", "2", 33),
    ("ctrl-c", "1", 5),
    ("ctrl-c", "2", 5),
    ("term", "2", 5),
]
IDS = [f"{how} jobs {jobs} before rename {n}" for how, jobs, n in CASES]


@pytest.mark.parametrize(("how", "jobs", "rename"), CASES, ids=IDS)
def test_a_killed_run_leaves_nothing_after_the_next_run(
    tmp_path: Path, how: str, jobs: str, rename: int
) -> None:
    store = generated_store(tmp_path, conversations=CONVERSATIONS, total_bytes=2_400_000, seed=11)
    files = sorted(store.glob("conversations/**/events.json"))
    originals = {p: p.read_bytes() for p in files}
    proc = _start_paused(store, jobs, rename)
    _stop(proc, how)
    _no_process_left(store)
    states = [_state(p) for p in files]  # every file whole
    assert "legacy" in states, "the kill landed after the run"
    if jobs == "1":  # exactly where the hook stopped it
        assert states.count("migrated") == rename - 1

    rerun = run_cli("conversations", str(store), "--jobs", jobs)  # finishes, with any --jobs
    assert rerun.returncode == 0, rerun.stderr
    assert all(_state(p) in ("migrated", "none") for p in files)
    assert _leftovers(store) == []
    verify = run_cli("conversations", str(store), "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr

    for _ in range(2):  # the rerun's run, then the killed one
        back = run_cli("rollback", str(store))
        assert back.returncode == 0, back.stderr
    assert {p: p.read_bytes() for p in files} == originals
    assert _leftovers(store) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_rollback_after_a_kill_restores_and_leaves_nothing(tmp_path: Path, jobs: str) -> None:
    store = generated_store(tmp_path, conversations=CONVERSATIONS, total_bytes=2_400_000, seed=5)
    files = sorted(store.glob("conversations/**/events.json"))
    originals = {p: p.read_bytes() for p in files}
    proc = _start_paused(store, jobs, 5)
    _stop(proc, "kill")
    _no_process_left(store)
    assert list(store.glob("conversations/**/.*.partial")), "no temporary to clean up"
    back = run_cli("rollback", str(store))
    assert back.returncode == 0, back.stderr
    assert {p: p.read_bytes() for p in files} == originals
    assert _leftovers(store) == []


def test_a_worker_killed_from_outside_ends_the_run_with_one_line(tmp_path: Path) -> None:
    """A --jobs worker SIGKILLed (the OOM killer, say) mid-write: one error line, exit 2,
    every file whole; the next run finishes."""
    store = generated_store(tmp_path, conversations=CONVERSATIONS, total_bytes=2_400_000, seed=7)
    proc = _start_paused(store, "2", 5)
    worker = next(pid for pid in _family(proc.pid) if _stopped(pid))
    assert worker != proc.pid
    os.kill(worker, signal.SIGKILL)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # hung: leave no busy process to the rest of the suite
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith("error: a --jobs worker process died"), lines
    for path in store.glob("conversations/**/events.json"):
        _state(path)
    rerun = run_cli("conversations", str(store), "--jobs", "2")
    assert rerun.returncode == 0, rerun.stderr
    assert _leftovers(store) == []
