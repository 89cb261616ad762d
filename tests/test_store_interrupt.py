"""Ctrl-C at the end of a store command: once the work is recorded, the summary and the undo
line are always printed, then the command ends as the signal asks (exit 130).

The interrupt is injected at each step of the ending through a seam (a function of the
command wrapped to send this process SIGINT on its N-th call), never by timing: os.kill
to the process itself runs the signal's handler before it returns.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from store_support import legacy_events, write_conversation

INTERRUPT_AT = """
import importlib, os, signal, sys
module = importlib.import_module(sys.argv[1])
name, count = sys.argv[2], int(sys.argv[3])
real = getattr(module, name)
calls = [0]

def interrupted(*args, **kwargs):
    calls[0] += 1
    if calls[0] == count:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, here and nowhere else
    return real(*args, **kwargs)

setattr(module, name, interrupted)
from jp_migrate.cli import main
sys.argv = ["jp-migrate", *sys.argv[4:]]
main()
"""


def _interrupted(point: tuple[str, str, int], *args: str) -> subprocess.CompletedProcess[str]:
    module, name, count = point
    return subprocess.run(
        [sys.executable, "-c", INTERRUPT_AT, module, name, str(count), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )


def _store(root: Path) -> list[Path]:
    return [
        write_conversation(root, f"1700000000{n}-c", legacy_events(f"call_{n}")) for n in range(3)
    ]


# Every step after the last conversation is committed: the run's record, then the output.
MIGRATION_ENDING = [
    ("jp_migrate.store.manifest", "finish_run", 1),
    ("jp_migrate.store.manifest", "clear_discards", 2),
    ("jp_migrate.store.cli", "exit_code", 1),
    ("jp_migrate.store.cli", "_print_files", 1),
    ("jp_migrate.store.cli", "_summary", 1),
    ("jp_migrate.store.cli", "finish", 1),
    ("jp_migrate.store.cli", "_undo", 1),
]


@pytest.mark.parametrize("point", MIGRATION_ENDING, ids=[p[1] for p in MIGRATION_ENDING])
def test_ctrl_c_after_the_last_write_still_prints_the_summary_and_the_undo_line(
    tmp_path: Path, point: tuple[str, str, int]
) -> None:
    root = tmp_path / "s"
    _store(root)
    result = _interrupted(point, "conversations", str(root))
    assert result.returncode == 130, result.stderr
    assert "Aborted." not in result.stderr and "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert "3 files: 3 changed (3 events), 0 unchanged, 0 errors, 0 skipped" in lines
    assert lines[-1].startswith("run recorded in ")
    assert lines[-1].endswith(f"(undo: jp-migrate rollback {root})")
    (run,) = (root / ".jp-migrate" / "runs").iterdir()
    assert (run / "manifest.json").is_file()  # the record was finished, not cut short


ROLLBACK_ENDING = [
    ("jp_migrate.store.manifest", "mark_rolled_back", 1),
    ("jp_migrate.store.rollback_cli", "exit_code", 1),
    ("jp_migrate.store.rollback_cli", "_print_restored", 1),
    ("jp_migrate.store.rollback_cli", "finish", 1),
]


@pytest.mark.parametrize("point", ROLLBACK_ENDING, ids=[p[1] for p in ROLLBACK_ENDING])
def test_ctrl_c_at_the_end_of_a_rollback_still_says_what_it_rolled_back(
    tmp_path: Path, point: tuple[str, str, int]
) -> None:
    root = tmp_path / "s"
    paths = _store(root)
    originals = {p: p.read_bytes() for p in paths}
    assert run_cli("conversations", str(root)).returncode == 0
    (run,) = (root / ".jp-migrate" / "runs").iterdir()
    result = _interrupted(point, "rollback", str(root))
    assert result.returncode == 130, result.stderr
    assert "Aborted." not in result.stderr and "Traceback" not in result.stderr
    assert result.stdout.splitlines()[-1] == f"rolled back run {run.name}"
    assert (run / "rolled-back").exists()
    assert {p: p.read_bytes() for p in paths} == originals
