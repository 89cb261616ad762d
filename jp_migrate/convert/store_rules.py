"""Whole-conversation conversion: every legacy response in an event list → blocks.

Pure: an event list in, a new event list and what happened out. Opt-in store
rules (SPEC §3, issue "store rules") may replace the faithful single text block
with richer blocks, but only when the rendering stays exactly the legacy text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from jp_migrate.contract.blocks import ContentBlock
from jp_migrate.convert.encoding import decode_payload
from jp_migrate.convert.events import Event, ResponseUpgrade, is_response, upgrade_response
from jp_migrate.convert.render import render
from jp_migrate.errors import ContractError, RuleError

FAITHFUL_RULE = "store-faithful-text"


@dataclass(frozen=True)
class RuleContext:
    """What a store rule may look at besides the response's decoded text."""

    text: str
    is_error: bool
    request: Event | None  # the matching tool_call_request, string leaves decoded
    root: str | None  # the workspace root, for file URIs; None when unknown
    match: Mapping[str, Any] = field(default_factory=dict)  # the rule file's [match] table


# id → implementation: returns richer blocks, or None to leave the response to the next rule.
StoreRule = Callable[[RuleContext], list[ContentBlock] | None]
STORE_RULES: dict[str, StoreRule] = {}
# id → what checks its [match] table: returns (key, reason) of the first bad entry, or None
MatchCheck = Callable[[Mapping[str, Any]], tuple[str, str] | None]
MATCH_CHECKS: dict[str, MatchCheck] = {}


def store_rule(rule_id: str, check: MatchCheck | None = None) -> Callable[[StoreRule], StoreRule]:
    def register(fn: StoreRule) -> StoreRule:
        STORE_RULES[rule_id] = fn
        if check is not None:
            MATCH_CHECKS[rule_id] = check
        return fn

    return register


def check_match(rule: Any) -> None:
    """A rule file's `[match]` table as its implementation reads it, or RuleError naming the key.

    Checked when a rule is selected (and by `rules test`), before any store is read:
    a wrong type would otherwise make the rule silently match nothing, and a bad
    pattern fail mid-run.
    """
    _load_builtin_rules()
    check = MATCH_CHECKS.get(rule.id)
    bad = check(rule.match) if check is not None else None
    if bad is not None:
        key, reason = bad
        raise RuleError(str(rule.path), f"match.{key}", reason)


def decode_leaves(value: Any) -> Any:
    """Every string leaf decoded as a stored payload (how JP stores request arguments)."""
    if isinstance(value, str):
        return decode_payload(value)[0]
    if isinstance(value, list):
        return [decode_leaves(v) for v in value]
    if isinstance(value, dict):
        return {k: decode_leaves(v) for k, v in value.items()}
    return value


@dataclass
class EventsUpgrade:
    events: list[Any]
    upgrades: dict[int, ResponseUpgrade] = field(default_factory=dict)  # index → what happened

    @property
    def rules(self) -> list[str]:
        return sorted({r for u in self.upgrades.values() for r in u.rules})


def upgrade_events(
    events: Sequence[Any],
    *,
    encoding: Literal["auto", "base64", "plain"] = "auto",
    rules: Sequence[str] = (),
    root: str | None = None,
    matches: Mapping[str, Mapping[str, Any]] | None = None,
) -> EventsUpgrade:
    """Migrate every legacy `tool_call_response`; everything else is returned as it was.

    `matches` gives each opt-in rule the `[match]` table of its rule file (data, not code).
    Raises ContractError (naming `[index].field`) for a response that fits neither shape.
    """
    unknown = [r for r in rules if r not in STORE_RULES]
    if unknown:
        _load_builtin_rules()
        unknown = [r for r in rules if r not in STORE_RULES]
    if unknown:
        raise ContractError(f"unknown store rule {unknown[0]!r}")
    # Only rules look at the request (the faithful conversion does not): a response's is
    # the nearest one before it with its id (providers reuse ids across turns).
    requests: dict[Any, Any] = {}
    result = EventsUpgrade(events=list(events))
    for index, event in enumerate(events):
        # is_response, inlined (this loop visits every event of every file)
        if type(event) is dict:
            kind = event.get("type")
            if kind != "tool_call_response":
                if rules and kind == "tool_call_request":
                    requests[event.get("id")] = event
                continue
        elif not is_response(event):
            continue
        try:
            upgrade = _upgrade_one(
                event, requests, encoding=encoding, rules=rules, root=root, matches=matches or {}
            )
        except ContractError as exc:
            raise ContractError(exc.reason, field=f"[{index}].{exc.field}".rstrip(".")) from None
        if upgrade is not None:
            result.events[index] = upgrade.event
            result.upgrades[index] = upgrade
    return result


def _upgrade_one(
    event: Event,
    requests: dict[Any, Any],
    *,
    encoding: Literal["auto", "base64", "plain"],
    rules: Sequence[str],
    root: str | None,
    matches: Mapping[str, Mapping[str, Any]],
) -> ResponseUpgrade | None:
    faithful = upgrade_response(event, encoding=encoding, rules=(FAITHFUL_RULE,))
    if faithful is None or not rules:
        return faithful
    request = requests.get(event.get("id"))
    context = RuleContext(
        text=faithful.text,
        is_error=bool(event.get("is_error")),
        request=decode_leaves(request) if isinstance(request, dict) else None,
        root=root,
    )
    for rule_id in rules:
        rule_context = replace(context, match=matches.get(rule_id, {}))
        blocks = STORE_RULES[rule_id](rule_context)
        if blocks is not None and render(blocks) == faithful.text:
            return upgrade_response(event, encoding=encoding, blocks=blocks, rules=(rule_id,))
    return faithful


def _load_builtin_rules() -> None:
    """Import the modules that register the shipped store rules."""
    import importlib

    for module in ("jp_migrate.convert.file_resource",):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            continue


def run_example(rule: Any, example: Any) -> tuple[str, list[str]]:
    """`jp-migrate rules test` executor: the input is an events array, so is the output."""
    from jp_migrate.contract.parse import load_json

    events = load_json(example.input, source=f"{rule.path}: {example.name}")
    if not isinstance(events, list):
        raise ContractError("a store rule example's input is a JSON array of events")
    rules = () if rule.id == FAITHFUL_RULE else (rule.id,)
    check_match(rule)
    root = rule.match.get("example_root") if isinstance(rule.match, dict) else None
    match = rule.match if isinstance(rule.match, dict) else {}
    result = upgrade_events(events, rules=rules, root=root, matches={rule.id: match})
    reports = [f"{rule_id}" for u in result.upgrades.values() for rule_id in u.rules]
    return json.dumps(result.events, indent=2, ensure_ascii=False), reports
