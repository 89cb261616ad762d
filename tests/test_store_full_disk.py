"""A full disk wherever the store writes: the store itself, its run records. Real small
tmpfs mounts under the test's own control (skipped where mounting is not allowed).

Each time: the per-file report and the summary still print, each error names the file
it failed on, no temporary is left, nothing is half-written, and once there is room a
rerun finishes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli
from store_support import legacy_events, responses, write_conversation

NAMES = [f"1700000000{i}-c" for i in range(5)]
SUMMARY = re.compile(
    r"^\d files: (\d) changed \(\d events?\), 0 unchanged, (\d) errors?, 0 skipped$"
)


def _mount(directory: Path, options: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")


@pytest.fixture
def mounts() -> Iterator[list[Path]]:
    """Directories to mount a tmpfs on; each unmounted at the end."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted: list[Path] = []
    yield mounted
    for directory in reversed(mounted):
        subprocess.run(["umount", "-l", str(directory)], check=False)


def _fill(directory: Path, leave: int) -> Path:
    """A file taking all but `leave` bytes of the filesystem's free space."""
    info = os.statvfs(directory)
    filler = directory / "filler"
    with open(filler, "wb") as out:
        out.write(b"\0" * max(0, info.f_bavail * info.f_frsize - leave))
    return filler


def _store(root: Path) -> dict[str, Path]:
    return {
        name: write_conversation(root, name, legacy_events(text=f"{name} " + "x" * 30_000))
        for name in NAMES
    }


def _partials(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".partial")]


def _summary(stdout: str) -> tuple[int, int]:
    matched = [SUMMARY.match(line) for line in stdout.splitlines()]
    (found,) = [m for m in matched if m is not None]
    return int(found[1]), int(found[2])


def test_a_full_store_fails_the_files_that_do_not_fit_and_names_their_temporaries(
    tmp_path: Path, mounts: list[Path]
) -> None:
    root = tmp_path / "store"
    _mount(root, "size=1m")
    mounts.append(root)
    paths = _store(root)
    before = {p: p.read_bytes() for p in paths.values()}
    filler = _fill(root, leave=100_000)  # room for about two of the five new files
    result = run_cli("conversations", str(root))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    changed, errors = _summary(result.stdout)
    assert changed >= 1 and errors >= 1 and changed + errors == 5
    failed = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(failed) == errors
    for line in failed:
        assert re.search(r"writing \S+/\.events\.json\.jp-migrate\.partial: No space left", line)
    assert _partials(root) == []
    for path, data in before.items():
        assert path.read_bytes() == data or isinstance(responses(path)[0]["content"], list)
    filler.unlink()
    rerun = run_cli("conversations", str(root))
    assert rerun.returncode == 0, rerun.stderr
    assert all(isinstance(responses(p)[0]["content"], list) for p in paths.values())


def test_a_full_state_directory_leaves_every_file_and_names_the_journal(
    tmp_path: Path, mounts: list[Path]
) -> None:
    root = tmp_path / "store"
    paths = _store(root)
    before = {p: p.read_bytes() for p in paths.values()}
    state = root / ".jp-migrate"
    _mount(state, "size=1m")
    mounts.append(state)
    (state / ".gitignore").write_text("*\n")  # as a run before this one left it
    filler = _fill(state, leave=0)
    result = run_cli("conversations", str(root))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert _summary(result.stdout) == (0, 5)
    failed = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(failed) == 5
    for line in failed:
        assert "journal.jsonl: No space left on device" in line, line
    assert {p: p.read_bytes() for p in paths.values()} == before
    assert _partials(root) == []
    filler.unlink()
    assert run_cli("conversations", str(root)).returncode == 0


def test_a_manifest_that_does_not_fit_keeps_the_report_and_the_journal(
    tmp_path: Path, mounts: list[Path]
) -> None:
    """The last write of a run: every file is migrated and journaled, then the manifest
    finds no room (here: no inode left for it, on a tmpfs with exactly as many inodes as
    the run's record needs without it)."""
    root = tmp_path / "store"
    paths = _store(root)
    state = root / ".jp-migrate"
    # its root, .gitignore, runs/, the run, journal.jsonl, backup/, backup/conversations/,
    # and a copied backup per file (another filesystem: no link)
    _mount(state, f"size=4m,nr_inodes={7 + len(NAMES)}")
    mounts.append(state)
    result = run_cli("conversations", str(root))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert _summary(result.stdout) == (5, 1)
    assert sum(line.startswith("migrated ") for line in result.stdout.splitlines()) == 5
    (failed,) = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    (run,) = (state / "runs").iterdir()
    assert failed.startswith(f"error: {run / 'manifest.json'}: not written (No space left")
    assert _partials(root) == [] and not (run / "manifest.json").exists()
    journal = [json.loads(line) for line in (run / "journal.jsonl").read_text().splitlines()]
    assert len(journal) == 5
    back = run_cli("rollback", str(root))  # from the journal; still no inode for its mark
    assert not any(isinstance(responses(p)[0]["content"], list) for p in paths.values())
    assert back.returncode == 2 and "Traceback" not in back.stderr
    assert back.stderr.splitlines() == [f"error: {run / 'rolled-back'}: No space left on device"]
