"""Helpers for the `check` tests: an in-process CLI run, a legacy store copy, a stand-in codemod."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from jp_migrate.contract.report import ToolFile

CORPUS = Path(__file__).resolve().parent / "data" / "corpus" / "jp-store" / "conversations"


def legacy_workspace(root: Path) -> Path:
    """A workspace whose `.jp/conversations` is a copy of the real legacy corpus."""
    (root / ".jp").mkdir(parents=True, exist_ok=True)
    shutil.copytree(CORPUS, root / ".jp" / "conversations")
    for path in (root / ".jp").rglob("*"):  # the corpus files may be read-only; the copy must not be
        path.chmod(path.stat().st_mode | 0o200)
    return root


def empty_workspace(root: Path) -> Path:
    (root / ".jp" / "conversations").mkdir(parents=True)
    return root


def run_check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`jp-migrate check ARGS` in this process (so monkeypatched capabilities apply)."""
    from jp_migrate.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["check", *args])
    out = capsys.readouterr()
    code = exited.value.code
    return (code if isinstance(code, int) else 1), out.out, out.err


@dataclass(frozen=True)
class FakeToolsOptions:
    write: bool = True
    diff: bool = False
    exclude: tuple[str, ...] = ()
    exclude_base: Path | None = None
    jobs: int = 1


def fake_codemod(
    monkeypatch: pytest.MonkeyPatch,
    answer: Callable[[Sequence[Path], FakeToolsOptions], list[ToolFile]],
) -> list[tuple[list[Path], FakeToolsOptions]]:
    """Stand in for the codemod `check`'s tools step calls; returns the calls seen."""
    from jp_migrate.ci import run

    calls: list[tuple[list[Path], FakeToolsOptions]] = []

    def migrate_tools(paths: Sequence[Path], options: FakeToolsOptions) -> list[ToolFile]:
        calls.append((list(paths), options))
        return answer(paths, options)

    monkeypatch.setattr(run, "ToolsOptions", FakeToolsOptions)
    monkeypatch.setattr(run, "migrate_tools", migrate_tools)
    return calls
