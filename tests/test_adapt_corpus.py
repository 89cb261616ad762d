"""The blind tool corpus (tests/corpus/tools) behind the adapters, as a user switching JP
first would route it: the tools the codemod cannot migrate (`--unmigratable`) and a few
of other styles by name, then `jp-migrate verify` of each against the original.

`benchmarks/corpus_adapt.py` does the same for every tool and MCP server of the corpus.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from adapt_support import verify
from bridge_support import python_on_path
from conftest import REPO, run_cli

CORPUS = REPO / "tests" / "corpus" / "tools"
ADAPTER = f"{sys.executable} -m jp_migrate"
# click, typer, async, a class, a factory shared with release_check: styles the adapter
# meets as they are (the codemod migrates them, a user may adapt them anyway).
BY_NAME = ("fmt_check", "kv_store", "run_tests", "sysinfo", "semver_bump")


@pytest.fixture(autouse=True)
def _python3_is_this_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", python_on_path()["PATH"])


def test_the_corpus_tools_behind_the_adapter_read_as_before(tmp_path: Path) -> None:
    original = shutil.copytree(CORPUS, tmp_path / "before" / "tools")
    adapted = shutil.copytree(CORPUS, tmp_path / "after" / "tools")
    done = run_cli(
        "adapt", "--config", str(adapted), "--adapter-command", ADAPTER, "--unmigratable"
    )
    assert done.returncode == 0, done.stderr
    needed = sorted(
        line.split("'")[1] for line in done.stdout.splitlines() if ": needs the adapter: " in line
    )
    assert "lockfile_check" in needed  # its "type" is only known when it runs
    by_name = [a for name in BY_NAME for a in ("--tool", name)]
    done = run_cli("adapt", "--config", str(adapted), "--adapter-command", ADAPTER, *by_name)
    assert done.returncode == 0, done.stderr
    cases = [json.loads(line) for line in (CORPUS / "cases.jsonl").read_text().splitlines() if line]
    seen = 0
    for tool in [*needed, *BY_NAME]:
        mine = tmp_path / f"{tool}.jsonl"
        mine.write_text("".join(json.dumps(c) + "\n" for c in cases if c["tool"] == tool))
        report = verify(original, adapted, tool, mine, tmp_path / f"{tool}.json")
        for case in report["verify"]:
            assert case["verdict"] in ("match", "expected"), (tool, case)
        seen += len(report["verify"])
    assert seen >= 35


OTHER_LANGUAGES = REPO / "tests" / "corpus" / "adapt"
NEEDS = ("bash", "node", "perl", "jq", "awk", "cc")


@pytest.mark.skipif(
    any(shutil.which(p) is None for p in NEEDS),
    reason=f"the non-Python corpus needs {', '.join(NEEDS)} on PATH",
)
def test_the_non_python_corpus_behind_the_adapter_reads_as_before(tmp_path: Path) -> None:
    """tests/corpus/adapt: 17 tools in bash, sh, Node.js, Perl, awk and C, written blind
    (its PROVENANCE.md), every one routed through the adapter and every case verified."""
    original = shutil.copytree(OTHER_LANGUAGES, tmp_path / "before" / "adapt")
    adapted = shutil.copytree(OTHER_LANGUAGES, tmp_path / "after" / "adapt")
    for workspace in (original, adapted):
        built = subprocess.run(
            ["sh", "tools/build.sh"], cwd=workspace, capture_output=True, check=False
        )
        assert built.returncode == 0, built.stderr
    tools = sorted(p.stem for p in (adapted / ".jp" / "mcp" / "tools").glob("*.toml"))
    chosen = [a for name in tools for a in ("--tool", name)]
    done = run_cli("adapt", "--config", str(adapted), "--adapter-command", ADAPTER, *chosen)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("': adapted") == len(tools) >= 17
    cases = [
        json.loads(line) for line in (original / "cases.jsonl").read_text().splitlines() if line
    ]
    verdicts: list[tuple[str, str, str]] = []
    for tool in tools:
        mine = tmp_path / f"{tool}.jsonl"
        mine.write_text("".join(json.dumps(c) + "\n" for c in cases if c["tool"] == tool))
        report = verify(original, adapted, tool, mine, tmp_path / f"{tool}.json", exits=(0, 2))
        verdicts += [(tool, c["verdict"], c.get("message", "")) for c in report["verify"]]
    assert len(verdicts) == len(cases) >= 135
    # A case that asks a question with no answer and no default fails on both sides alike.
    unanswered = "has no answer and no default"
    wrong = [v for v in verdicts if v[1] not in ("match", "expected")]
    assert all(v[1] == "error" and v[2].count(unanswered) == 2 for v in wrong), wrong
