"""The hostile-filesystem scenarios in tests/data/hostile/, written blind (PROVENANCE.md there).

Each scenario builds a workspace with something planted in it and a sibling `outside/`
directory of victim files; its commands run through the real command line. Whatever a
scenario holds: nothing outside the workspace changes, no command prints a traceback or
exits with anything but 0, 1 or 2, the conversations the scenario names are migrated (or
left byte for byte), and the final rollback restores what it names.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_support import prepare, snapshot

HOSTILE = Path(__file__).parent / "data" / "hostile"
MEMORY_LIMIT = 4 << 30  # a 3 GiB sparse events.json must not be read into memory whole
TIMEOUT = 180  # generous: a hang (a FIFO opened, a loop followed) is what this catches
WRITING_FLAGS = {"--dry-run", "--check", "--diff", "--verify", "--check-integrity"}


def _scenarios() -> list[str]:
    return sorted(
        p.stem for p in (HOSTILE / "scenarios").glob("*.py") if not p.name.startswith("_")
    )


def _events(conversations: Path, name: str) -> bytes:
    return (conversations / name / "events.json").read_bytes()


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _run(argv: list[str], root: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "jp_migrate", *argv],
        check=False,
        cwd=root,
        capture_output=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
        preexec_fn=_limit_memory,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )


def _migrating(argv: list[str]) -> bool:
    return argv[:1] == ["conversations"] and not WRITING_FLAGS & set(argv)


@pytest.mark.parametrize("name", _scenarios())
def test_hostile_scenario(name: str, tmp_path: Path) -> None:
    root, outside, info = prepare(HOSTILE / "scenarios", name, tmp_path, "root")
    conversations = root / ".jp" / "conversations"
    before_outside = snapshot(outside)
    untouched = {d: snapshot(conversations / d) for d in info["expect_untouched"]}
    originals = {
        d: _events(conversations, d)
        for d in [*info["expect_migrated"], *info.get("expect_restored", [])]
    }
    migrated_checked = False
    for argv in info.get("commands", [["conversations", "."], ["rollback", "."]]):
        done = _run(argv, root)
        said = (done.stdout + done.stderr).decode("utf-8", "replace")
        where = f"{name}: jp-migrate {' '.join(argv)} (exit {done.returncode})\n{said[-3000:]}"
        assert "Traceback" not in said, where
        assert done.returncode in (0, 1, 2), where
        assert snapshot(outside) == before_outside, f"outside changed after {where}"
        for directory, seen in untouched.items():
            assert snapshot(conversations / directory) == seen, f"{directory} touched: {where}"
        if _migrating(argv) and not migrated_checked:
            migrated_checked = True
            for directory in info["expect_migrated"]:
                assert _events(conversations, directory) != originals[directory], (
                    f"{directory} not migrated: {where}"
                )
    for directory in info.get("expect_restored", []):
        assert _events(conversations, directory) == originals[directory], (
            f"{directory} not restored by the last command"
        )
