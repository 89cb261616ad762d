"""The executor for `kind = "codemod"` rules: `jp-migrate rules test` runs each example through it."""

from __future__ import annotations

from jp_migrate.codemod.engine import migrate_source
from jp_migrate.codemod.sites import format_site
from jp_migrate.errors import RuleError
from jp_migrate.rules.loader import Example, Rule

EXAMPLE_PATH = "example.py"


def run_example(rule: Rule, example: Example) -> tuple[str, list[str]]:
    """(the source after the codemod, its sites as `example.py:line:col: rule-id: reason`).

    An example's `output` must equal the rewritten source exactly; its `reports`
    are substrings the printed sites must contain. The rule's own id must act
    on the example, so an example cannot pass because another rule did the work.
    """
    result = migrate_source(example.input)
    if result.status == "error":
        raise RuleError(str(rule.path), example.name, f"example does not parse: {result.message}")
    reports = [format_site(EXAMPLE_PATH, s) for s in result.sites]
    if not any(s.rule == rule.id for s in result.sites) and not (example.output == example.input):
        reports.append(f"(rule {rule.id} did not act on this example)")
        return example.input if result.output is None else result.output, reports
    return (example.input if result.output is None else result.output), reports
