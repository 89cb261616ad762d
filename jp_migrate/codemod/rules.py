"""The executor for `kind = "codemod"` rules: `jp-migrate rules test` runs each example through it."""

from __future__ import annotations

from jp_migrate.codemod.engine import migrate_source
from jp_migrate.codemod.sites import format_site
from jp_migrate.errors import RuleError
from jp_migrate.rules.loader import Example, Rule

EXAMPLE_PATH = "example.py"


def run_example(rule: Rule, example: Example) -> tuple[str, list[str]]:
    """(the source after the codemod, its sites as `example.py:line:col: rule-id: reason`).

    The runner compares `output` exactly and looks for each of `reports` in the
    sites. An example whose `output` equals its `input` is code the rule must
    leave alone; any other example must be acted on by this very rule, so it
    cannot pass because another rule did the work.
    """
    result = migrate_source(example.input)
    if result.status == "error":
        raise RuleError(str(rule.path), example.name, f"example does not parse: {result.message}")
    acted = any(s.rule == rule.id for s in result.sites)
    leave_alone = example.output is not None and example.output == example.input
    if acted == leave_alone:
        verb = "acted on code it must leave alone" if leave_alone else "did not act on its example"
        raise RuleError(str(rule.path), example.name, f"rule {rule.id} {verb}")
    output = example.input if result.output is None else result.output
    return output, [format_site(EXAMPLE_PATH, s) for s in result.sites]
