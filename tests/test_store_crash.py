"""Crash safety: SIGKILL the migrator at random moments; every events.json stays whole.

After each kill every file parses and is wholly legacy or wholly migrated (the
atomic rename), and a rerun finishes the job; the interrupted runs can still be
verified against their backups.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bridge_support import live_processes
from conftest import REPO, run_cli
from store_support import generated_store

KILLS = 24


def _state(path: Path) -> str:
    events = json.loads(path.read_bytes())  # raises if a kill left a torn file
    kinds = {
        "migrated" if isinstance(e["content"], list) else "legacy"
        for e in events
        if e.get("type") == "tool_call_response"
    }
    assert len(kinds) <= 1, f"{path} is partly migrated: {kinds}"
    return kinds.pop() if kinds else "none"


def _start(store: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "jp_migrate", "conversations", str(store), *args],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _timed_run(store: Path, scratch: Path) -> float:
    """How long a whole run takes here (on a copy), so kills spread over start-up and writing."""
    shutil.copytree(store, scratch)
    started = time.perf_counter()
    _start(scratch).wait(timeout=120)
    elapsed = time.perf_counter() - started
    shutil.rmtree(scratch)
    return elapsed


def test_sigkill_at_random_moments_never_tears_a_file(tmp_path: Path) -> None:
    store = generated_store(tmp_path, conversations=160, total_bytes=2_400_000, seed=11)
    files = sorted(store.glob("conversations/**/events.json"))
    assert all(_state(p) == "legacy" for p in files)
    duration = _timed_run(store, tmp_path / "timing")
    rng = random.Random(2026)
    states: list[dict[str, int]] = []
    for kill in range(KILLS):
        proc = _start(store, *(["--jobs", "2"] if kill % 3 == 2 else []))
        time.sleep(rng.uniform(0.05, duration))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        counts = {"legacy": 0, "migrated": 0, "none": 0}
        for path in files:
            counts[_state(path)] += 1
        states.append(counts)
        if counts["legacy"] == 0:  # the run got through: start over from the backups
            assert run_cli("rollback", str(store)).returncode == 0
    assert any(0 < s["migrated"] < len(files) for s in states), f"no kill landed mid-run: {states}"

    final = run_cli("conversations", str(store))
    assert final.returncode == 0, final.stderr
    assert all(_state(p) in ("migrated", "none") for p in files)
    assert not list(
        store.glob("conversations/**/.*.partial")
    )  # temporaries of killed runs cleaned up
    verify = run_cli("conversations", str(store), "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


@pytest.mark.parametrize(
    ("signum", "group", "jobs"),
    [
        (signal.SIGINT, True, "1"),
        (signal.SIGINT, True, "2"),
        (signal.SIGTERM, True, "2"),
        (signal.SIGHUP, True, "2"),
        (signal.SIGTERM, False, "2"),
    ],
    ids=["ctrl-c", "ctrl-c jobs 2", "timeout jobs 2", "hangup jobs 2", "kill jobs 2"],
)
def test_a_stopped_run_ends_cleanly(
    tmp_path: Path, signum: signal.Signals, group: bool, jobs: str
) -> None:
    """A stop mid-run, to the whole process group (a terminal's Ctrl-C or hang-up, `timeout`'s
    SIGTERM) or to the CLI alone (`kill`): exit 128+signal at once, no traceback, no
    temporary left, no worker left, every file whole, and rollback undoes what was
    committed. With --jobs, workers had printed tracebacks and left their temporaries,
    and a group SIGTERM had killed them mid-batch and stalled the run for 30 s."""
    store = generated_store(tmp_path / "s", conversations=240, total_bytes=12_000_000, seed=7)
    files = sorted(store.glob("conversations/**/events.json"))
    before = {p: p.read_bytes() for p in files}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jp_migrate", "conversations", str(store), "--jobs", jobs],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not any(store.glob(".jp-migrate/runs/*/journal.jsonl")):  # a batch is committed
        assert proc.poll() is None and time.monotonic() < deadline, "the run never started"
        time.sleep(0.005)
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=15)  # well within the workers' 30 s grace
    stderr = err.decode()
    assert proc.returncode == 128 + signum and "Traceback" not in stderr, stderr
    assert not list(store.glob("conversations/**/.*.partial"))
    time.sleep(0.2)
    assert not [p for p in live_processes(str(store)) if p != proc.pid]
    states = [_state(p) for p in files]
    assert "legacy" in states, "the run finished before the signal: nothing was stopped"
    assert run_cli("rollback", str(store)).returncode == 0
    assert all(p.read_bytes() == data for p, data in before.items())


def test_a_worker_killed_from_outside_ends_the_run_with_one_line(tmp_path: Path) -> None:
    """A --jobs worker SIGKILLed (the OOM killer, say): one error line, exit 2, every file
    whole; the run had waited for it forever."""
    store = generated_store(tmp_path / "s", conversations=240, total_bytes=12_000_000, seed=7)
    proc = subprocess.Popen(
        [sys.executable, "-m", "jp_migrate", "conversations", str(store), "--jobs", "2"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    workers: list[str] = []
    while not workers:
        assert proc.poll() is None and time.monotonic() < deadline, "no worker started"
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children")
        workers = children.read_text().split() if children.exists() else []
        time.sleep(0.005)
    os.kill(int(workers[0]), signal.SIGKILL)  # most often idle, holding the task queue's lock
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # hung: leave no busy process to the rest of the suite
            proc.kill()
            proc.wait()
    lines = err.decode().strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith("error: a --jobs worker process died"), lines
    for path in store.glob("conversations/**/events.json"):
        _state(path)
