"""`--rules DIR` / `--rule ID` → the opt-in store rules to run, each with its `[match]` table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jp_migrate.convert.store_rules import (
    FAITHFUL_RULE,
    STORE_RULES,
    _load_builtin_rules,
    check_match,
)
from jp_migrate.errors import JpMigrateError
from jp_migrate.rules import Rule, discover_rules, rules_dir


class RuleId(str):
    """A rule named by its id (`--rule ID`): never read as a directory, as `--rules DIR` is."""


def _is_dir(item: str | Path, shipped: Mapping[str, Rule]) -> bool:
    """A `Path` (`--rules DIR`), or a string that is no shipped id and names a directory
    (a config's `rules`): a shipped id is never read as a directory of that name."""
    if isinstance(item, RuleId):
        return False
    return isinstance(item, Path) or (item not in shipped and Path(item).is_dir())


def select_rules(
    items: Sequence[str | Path],
) -> tuple[tuple[str, ...], dict[str, Mapping[str, Any]]]:
    """Rule ids in the order given (a directory contributes its store rules by id) and their tables.

    The faithful text rule always runs and is never listed. Raises JpMigrateError
    for an unknown id or a rule file with no implementation.
    """
    if not items:
        return (), {}  # the faithful rule only: no rule file to read
    shipped = {r.id: r for r in discover_rules(rules_dir(), kind="store")}
    chosen: dict[str, Rule] = {}
    for item in items:
        if _is_dir(item, shipped):
            for rule in discover_rules(Path(item), kind="store"):
                chosen.setdefault(rule.id, rule)
        elif str(item) in shipped:
            chosen.setdefault(str(item), shipped[str(item)])
        else:
            known = ", ".join(sorted(i for i in shipped if i != FAITHFUL_RULE))
            hint = (
                f"; for the rules in a directory use --rules {item}" if Path(item).is_dir() else ""
            )
            raise JpMigrateError(f"--rule {item}: no such store rule (shipped: {known}){hint}")
    chosen.pop(FAITHFUL_RULE, None)
    _load_builtin_rules()
    for rule_id, rule in chosen.items():
        if rule_id not in STORE_RULES:
            raise JpMigrateError(f"{rule.path}: store rule {rule_id!r} has no implementation")
        check_match(rule)
    return tuple(chosen), {rule_id: dict(rule.match) for rule_id, rule in chosen.items()}
