from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORPUS_DATA = REPO / "tests" / "data" / "corpus"  # real JP stores, see its PROVENANCE.md
EXAMPLES = REPO / "examples"

# The blind tool corpus is input to the codemod (its data holds a project with failing tests).
collect_ignore = ["corpus"]


def run_cli(
    *args: str, input: str | bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `python -m jp_migrate ARGS` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "jp_migrate", *args],
        input=input,
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        timeout=300,
        check=False,  # callers assert the exit code they expect
    )


def run_benchmark(script: str, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """Run `benchmarks/SCRIPT ARGS` as a real process (the smoke tests of the benchmark scripts)."""
    return subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture(autouse=True)
def jp_data_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """JP's user-local data directory (`$XDG_DATA_HOME/jp`) for this test: never the real one.

    A workspace's conversation locks are looked for there too (store/userlocal.py);
    child processes inherit the variable.
    """
    home = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home / "jp"
