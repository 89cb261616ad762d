"""Rules as data: TOML files under `rules/`, each with its own examples (see `loader`)."""

from jp_migrate.rules.loader import (
    Example,
    Rule,
    discover_rules,
    load_rule,
    rule_descriptions,
    rules_dir,
)
from jp_migrate.rules.runner import ExampleResult, run_examples

__all__ = [
    "Example",
    "ExampleResult",
    "Rule",
    "discover_rules",
    "load_rule",
    "rule_descriptions",
    "rules_dir",
    "run_examples",
]
