"""The CI examples: the workflow and the pre-commit config parse and call what exists."""

from __future__ import annotations

import shlex

import yaml
from conftest import EXAMPLES, REPO

from jp_migrate.report import FORMATS, parse_spec

WORKFLOW = EXAMPLES / "ci" / "jp-migrate.yml"
PRE_COMMIT = EXAMPLES / "ci" / ".pre-commit-config.yaml"


def _check_step() -> dict[str, str]:
    doc = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    steps = doc["jobs"]["check"]["steps"]
    return next(s for s in steps if s.get("id") == "check")


def test_workflow_runs_check_on_pull_requests_and_publishes_the_markdown() -> None:
    doc = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    assert "pull_request" in doc[True]  # YAML 1.1 reads the key `on` as True
    steps = doc["jobs"]["check"]["steps"]
    text = WORKFLOW.read_text("utf-8")
    assert "$GITHUB_STEP_SUMMARY" in text and "createComment" in text and "upload-sarif" in text
    assert steps[-1]["run"] == "exit ${{ steps.check.outputs.exit-code }}"


def test_workflow_report_options_are_valid_specs() -> None:
    script = _check_step()["run"].replace("\\\n", " ")
    line = next(x for x in script.splitlines() if x.strip().startswith("jp-migrate check"))
    words = shlex.split(line)
    specs = [words[i + 1] for i, w in enumerate(words) if w == "--report"]
    assert {parse_spec(s).fmt for s in specs} == set(FORMATS)
    summary = next(s for s in specs if s.startswith("markdown="))
    assert summary.partition("=")[2] in WORKFLOW.read_text("utf-8").split("Step summary")[1]


def test_pre_commit_example_uses_the_shipped_hook_and_check() -> None:
    doc = yaml.safe_load(PRE_COMMIT.read_text("utf-8"))
    hooks = [h for repo in doc["repos"] for h in repo["hooks"]]
    ids = {h["id"] for h in hooks}
    assert {"jp-migrate-tools", "jp-migrate-check"} <= ids
    local = next(h for h in hooks if h["id"] == "jp-migrate-check")
    assert local["entry"] == "jp-migrate check" and local["pass_filenames"] is False
    shipped = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    assert "jp-migrate-tools" in {h["id"] for h in shipped}
