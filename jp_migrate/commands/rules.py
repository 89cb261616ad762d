from __future__ import annotations

from pathlib import Path

import click

from jp_migrate.errors import RuleError
from jp_migrate.rules import discover_rules, run_examples


@click.group()
def rules() -> None:
    """Rules are data: TOML files with an id, what they match and produce, and examples."""


_DIR = click.option(
    "--rules",
    "directory",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="A directory of rule files (default: the shipped rules).",
)


@rules.command("list")
@_DIR
def list_rules(directory: Path | None) -> int:
    """List every rule: id, kind, whether it is on by default, description."""
    try:
        found = discover_rules(directory)
    except RuleError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    for rule in found:
        default = "on" if rule.enabled_by_default else "opt-in"
        click.echo(f"{rule.id}\t{rule.kind}\t{default}\t{rule.description}")
    return 0


@rules.command("test")
@_DIR
@click.option("-v", "--verbose", is_flag=True, help="Name every example, passed or not.")
def test_rules(directory: Path | None, verbose: bool) -> int:
    """Run every rule's examples; exit 1 when one fails."""
    try:
        results = run_examples(discover_rules(directory))
    except RuleError as exc:
        click.echo(f"error: {exc}", err=True)
        return 2
    failed = [r for r in results if not r.passed]
    for r in results:
        if verbose or not r.passed:
            click.echo(f"{'ok  ' if r.passed else 'FAIL'} {r.rule}: {r.example}")
            if r.detail:
                click.echo("     " + r.detail.replace("\n", "\n     "))
    passed = len(results) - len(failed)
    click.echo(f"rules: {passed} passed, {len(failed)} failed")
    return 1 if failed else 0
