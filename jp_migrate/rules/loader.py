"""Load and validate rule files.

A rule is a TOML file: `id`, `description`, `kind` (`store` or `codemod`),
`[match]` (what it looks for), `[produce]` (what it makes), optional
`enabled_by_default`, and `[[examples]]`, each an `input` with either the
expected `output` or the `reports` it must make. Tables under `match` and
`produce` are read by the capability that implements the rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from jp_migrate.errors import RuleError
from jp_migrate.tomlfile import read_toml

RuleKind = Literal["store", "codemod"]
_ID = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_TOP_KEYS = {"id", "description", "kind", "match", "produce", "enabled_by_default", "examples"}
_EXAMPLE_KEYS = {"name", "input", "output", "reports"}


@dataclass(frozen=True)
class Example:
    name: str
    input: str
    output: str | None
    reports: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rule:
    id: str
    description: str
    kind: RuleKind
    match: dict[str, Any]
    produce: dict[str, Any]
    examples: tuple[Example, ...]
    path: Path
    enabled_by_default: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def rules_dir() -> Path:
    """The shipped rules: `jp_migrate/_rules` when installed, the repo's `rules/` in a checkout."""
    packaged = Path(str(resources.files("jp_migrate"))) / "_rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "rules"


def _require(data: dict[str, Any], key: str, kind: type, path: str) -> Any:
    if key not in data:
        raise RuleError(path, key, "missing")
    value = data[key]
    if kind is dict and not isinstance(value, dict):
        raise RuleError(path, key, f"expected a table, got {_toml_type(value)}")
    if kind is str and not (isinstance(value, str) and value.strip()):
        got = "an empty string" if isinstance(value, str) else _toml_type(value)
        raise RuleError(path, key, f"expected a non-empty string, got {got}")
    return value


def _toml_type(value: Any) -> str:
    """A TOML value's type in TOML's words, for error messages."""
    names = {
        bool: "a boolean",
        int: "an integer",
        float: "a float",
        str: "a string",
        list: "an array",
        dict: "a table",
    }
    return next(
        (name for kind, name in names.items() if isinstance(value, kind)), type(value).__name__
    )


def _example(raw: Any, index: int, path: str) -> Example:
    key = f"examples[{index}]"
    if not isinstance(raw, dict):
        raise RuleError(path, key, "expected a table")
    unknown = sorted(set(raw) - _EXAMPLE_KEYS)
    if unknown:
        raise RuleError(path, f"{key}.{unknown[0]}", "unknown key")
    if "input" not in raw:
        raise RuleError(path, f"{key}.input", "missing")
    source = raw["input"]
    if not isinstance(source, str):
        raise RuleError(path, f"{key}.input", f"expected a string, got {_toml_type(source)}")
    output = raw.get("output")
    reports = raw.get("reports", [])
    if output is not None and not isinstance(output, str):
        raise RuleError(path, f"{key}.output", "expected a string")
    if not isinstance(reports, list) or not all(isinstance(r, str) for r in reports):
        raise RuleError(path, f"{key}.reports", "expected a list of strings")
    if output is None and not reports:
        raise RuleError(path, key, "an example needs an `output` or `reports`")
    name = raw.get("name", f"example {index + 1}")
    if not isinstance(name, str):
        raise RuleError(path, f"{key}.name", "expected a string")
    return Example(name, source, output, tuple(reports))


def load_rule(path: Path) -> Rule:
    where = str(path)
    data = read_toml(path, lambda reason: RuleError(where, "", reason))
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise RuleError(where, unknown[0], "unknown key")
    rule_id = _require(data, "id", str, where)
    if not _ID.fullmatch(rule_id):
        raise RuleError(where, "id", f"{rule_id!r} is not kebab-case")
    if rule_id != path.stem:
        raise RuleError(where, "id", f"{rule_id!r} must match the file name {path.stem!r}")
    kind = _require(data, "kind", str, where)
    if kind not in ("store", "codemod"):
        raise RuleError(where, "kind", f"{kind!r} is not one of store, codemod")
    enabled = data.get("enabled_by_default", False)
    if not isinstance(enabled, bool):
        raise RuleError(where, "enabled_by_default", "expected a boolean")
    examples = data.get("examples")
    if not isinstance(examples, list) or not examples:
        raise RuleError(where, "examples", "a rule needs at least one [[examples]] entry")
    return Rule(
        id=rule_id,
        description=_require(data, "description", str, where),
        kind=kind,
        match=_require(data, "match", dict, where),
        produce=_require(data, "produce", dict, where),
        examples=tuple(_example(raw, i, where) for i, raw in enumerate(examples)),
        path=path,
        enabled_by_default=enabled,
    )


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
