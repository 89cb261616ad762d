"""The blind tool corpus (tests/corpus/tools, see its PROVENANCE.md): what the codemod does to it.

`benchmarks/corpus_tools.py` also runs `jp-migrate verify` over its 298 cases;
here, only what needs no tool run: the share of Outcome sites rewritten, and
that every refused site says what to change.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jp_migrate.codemod import ToolsOptions, migrate_tools
from jp_migrate.codemod.sites import READS_LEGACY_KEYS

CORPUS = Path(__file__).parent / "corpus" / "tools"
# Words by which a refusal says what the user can change.
ADVICE = ("to have it rewritten", "instead", "# jp-migrate: skip", "then run", "edit it by hand")


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> list:  # type: ignore[type-arg]
    root = tmp_path_factory.mktemp("corpus")
    for part in ("tools", "servers"):
        shutil.copytree(CORPUS / part, root / part)
    return migrate_tools([root / "tools", root / "servers"], ToolsOptions(write=True))


def test_most_outcome_sites_are_rewritten(migrated: list) -> None:  # type: ignore[type-arg]
    assert [f.path for f in migrated if f.status == "error"] == []
    sites = [s for f in migrated for s in f.sites if s.rule != READS_LEGACY_KEYS]
    rewritten = sum(s.action == "rewritten" for s in sites)
    assert len(sites) >= 160
    assert rewritten / len(sites) >= 0.95, (rewritten, len(sites))


def test_every_refused_site_says_what_to_change(migrated: list) -> None:  # type: ignore[type-arg]
    silent = [
        f"{f.path}:{s.line}:{s.column}: {s.reason}"
        for f in migrated
        for s in f.sites
        if s.action == "unhandled" and not any(word in s.reason for word in ADVICE)
    ]
    assert silent == []


def test_every_rewritten_tool_still_compiles(migrated: list) -> None:  # type: ignore[type-arg]
    for f in migrated:
        if f.status == "migrated":
            source = Path(f.path).read_text("utf-8")
            compile(source, f.path, "exec")
