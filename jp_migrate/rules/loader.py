"""Load and validate rule files.

A rule is a TOML file: `id`, `description`, `kind` (`store` or `codemod`),
`[match]` (what it looks for), `[produce]` (what it makes), optional
`enabled_by_default`, and `[[examples]]`, each an `input` with either the
expected `output` or the `reports` it must make. Tables under `match` and
`produce` are read by the capability that implements the rule.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, PrivateAttr, field_validator, model_validator

from jp_migrate.configfile import ConfigModel, NonEmpty, validated
from jp_migrate.errors import RuleError
from jp_migrate.tomlfile import read_toml

RuleKind = Literal["store", "codemod"]
_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def _as_tuple(cls: type, value: Any) -> Any:
    """A TOML array as the tuple it is kept as (strict mode takes a tuple only as a tuple)."""
    return tuple(value) if isinstance(value, list) else value


class Example(ConfigModel):
    """`[[examples]]`: an `input` and the `output` it becomes or the `reports` it makes."""

    name: str = ""  # "example N" when the file gives none
    input: str
    output: str | None = None
    reports: tuple[str, ...] = ()

    _array = field_validator("reports", mode="before")(_as_tuple)

    @model_validator(mode="after")
    def _makes_something(self) -> Example:
        if self.output is None and not self.reports:
            raise ValueError("an example needs an `output` or `reports`")
        return self


def _some(examples: tuple[Example, ...]) -> tuple[Example, ...]:
    if not examples:
        raise ValueError("a rule needs at least one [[examples]] entry")
    return tuple(
        e if e.name else e.model_copy(update={"name": f"example {i + 1}"})
        for i, e in enumerate(examples)
    )


class Rule(ConfigModel):
    """A rule file's contents; `path` is the file it was read from."""

    id: NonEmpty
    description: NonEmpty
    kind: RuleKind
    match: dict[str, Any]
    produce: dict[str, Any]
    enabled_by_default: bool = False
    examples: Annotated[tuple[Example, ...], AfterValidator(_some)] = Field(
        default=(), validate_default=True
    )
    _path: Path = PrivateAttr(default=Path())
    _array = field_validator("examples", mode="before")(_as_tuple)

    @property
    def path(self) -> Path:
        return self._path


def rules_dir() -> Path:
    """The shipped rules: `jp_migrate/_rules` when installed, the repo's `rules/` in a checkout."""
    packaged = Path(str(resources.files("jp_migrate"))) / "_rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "rules"


def load_rule(path: Path) -> Rule:
    where = str(path)
    data = read_toml(path, lambda reason: RuleError(where, "", reason))
    rule = validated(Rule, data, lambda key, why: RuleError(where, key, why))
    if not _ID.fullmatch(rule.id):
        raise RuleError(where, "id", f"{rule.id!r} is not kebab-case")
    if rule.id != path.stem:
        raise RuleError(where, "id", f"{rule.id!r} must match the file name {path.stem!r}")
    rule._path = path
    return rule


def discover_rules(directory: Path | None = None, *, kind: RuleKind | None = None) -> list[Rule]:
    """Every `*.toml` rule under `directory` (default: the shipped rules), sorted by id."""
    root = directory or rules_dir()
    if not root.is_dir():
        raise RuleError(str(root), "", "not a directory")
    rules = [load_rule(p) for p in sorted(root.rglob("*.toml"))]
    seen: dict[str, Path] = {}
    for rule in rules:
        if rule.id in seen:
            raise RuleError(str(rule.path), "id", f"{rule.id!r} is also defined in {seen[rule.id]}")
        seen[rule.id] = rule.path
    return sorted((r for r in rules if kind is None or r.kind == kind), key=lambda r: r.id)


def rule_descriptions(directory: Path | None = None) -> dict[str, str]:
    """Each rule's one-line description by id (default: the shipped rules), for reports."""
    return {rule.id: rule.description for rule in discover_rules(directory)}
