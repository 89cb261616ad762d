"""Every shipped rule's examples, one pytest case each: pytest runs `jp-migrate rules test`."""

from __future__ import annotations

import pytest
from conftest import run_cli

from jp_migrate.rules import Example, Rule, discover_rules, run_examples

CASES = [(rule, example) for rule in discover_rules() for example in rule.examples]


def test_there_are_shipped_rules_with_examples() -> None:
    assert any(rule.id == "store-faithful-text" for rule, _ in CASES)


@pytest.mark.parametrize(("rule", "example"), CASES, ids=[f"{r.id}: {e.name}" for r, e in CASES])
def test_rule_example(rule: Rule, example: Example) -> None:
    (result,) = run_examples([rule.model_copy(update={"examples": (example,)})])
    assert result.passed, result.detail


def test_cli_rules_test_runs_them_all() -> None:
    done = run_cli("rules", "test")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"rules: {len(CASES)} passed, 0 failed"
