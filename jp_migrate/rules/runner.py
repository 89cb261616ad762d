"""Run every rule's examples through the capability that implements its kind."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from jp_migrate.errors import JpMigrateError
from jp_migrate.rules.loader import Example, Rule

# kind → "module:function(rule, example) -> (output, reports)"; imported only when used.
EXECUTORS: dict[str, str] = {
    "store": "jp_migrate.convert.store_rules:run_example",
    "codemod": "jp_migrate.codemod.rules:run_example",
}

Executor = Callable[[Rule, Example], tuple[str, list[str]]]


@dataclass(frozen=True)
class ExampleResult:
    rule: str
    example: str
    passed: bool
    detail: str = ""


def _executor(kind: str) -> Executor:
    module, _, name = EXECUTORS[kind].partition(":")
    try:
        fn: Executor = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise JpMigrateError(f"no implementation for {kind} rules: {exc}") from None
    return fn


def _check(rule: Rule, example: Example, run: Executor) -> ExampleResult:
    try:
        output, reports = run(rule, example)
    except JpMigrateError as exc:
        return ExampleResult(rule.id, example.name, False, f"raised: {exc}")
    if example.output is not None and output != example.output:
        return ExampleResult(
            rule.id, example.name, False, f"expected output:\n{example.output}\ngot:\n{output}"
        )
    missing = [want for want in example.reports if not any(want in got for got in reports)]
    if missing:
        return ExampleResult(
            rule.id, example.name, False, f"missing reports {missing}; got {reports}"
        )
    return ExampleResult(rule.id, example.name, True)


def run_examples(rules: list[Rule]) -> list[ExampleResult]:
    return [_check(rule, ex, _executor(rule.kind)) for rule in rules for ex in rule.examples]
