"""Project configuration: `[tool.jp-migrate]` in `pyproject.toml`, or a `.jp-migrate.toml`.

A `.jp-migrate.toml` holds the keys at its top level (or under `[tool.jp-migrate]`,
so one table can be moved between the two files). Relative paths in a config
file resolve against the file's directory and must stay in it (`..`, an
absolute path or a link leading out is refused: a repository's config never
sends `check` outside the repository); command-line flags override keys.

    paths = ["."]                 # what to check (default: the config file's directory)
    store-paths = [".jp"]         # only for the store dry run (default: paths)
    tool-paths = ["tools"]        # only for the codemod dry run (default: paths)
    exclude = ["tests/**"]        # gitignore-style patterns the codemod skips
    exclude-archived = false      # skip conversations under .archive/
    rules = ["store-x", "my-rules/"]  # opt-in store rules: ids, or directories of rule files
    encoding = "auto"             # at-rest encoding of migrated payloads: auto, base64, plain
    cases = "cases.jsonl"         # verify cases: when set, `check` also verifies
    store = true                  # run the store dry run
    tools = true                  # run the codemod dry run
    diff = false                  # put unified diffs in the reports
    report = ["terminal"]         # report specs, as `--report` takes them
    jobs = 1

    [verify]                      # how to run the cases (tools of the workspace's JP config)
    tool = "name"                 # the tool of cases that name none ("tool" on a case line wins)
    tools = ["a", "b"]            # only these tools' cases (default: every tool the cases name)
    timeout = 60.0                # seconds per run
    [verify.control]              # compare with another tool instead of a migrated copy:
    mcp_greet = "mcp_greet_jp"    #   candidate tool = control tool (same workspace)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from jp_migrate.configfile import KebabModel, NonEmpty, Seconds, validated
from jp_migrate.errors import JpMigrateError
from jp_migrate.files.workspace import within
from jp_migrate.tomlfile import read_toml

CONFIG_FILE = ".jp-migrate.toml"
PYPROJECT = "pyproject.toml"
TABLE = ("tool", "jp-migrate")


class ConfigError(JpMigrateError):
    """A config file is unreadable or a key is wrong: names the file and the key."""

    def __init__(self, path: Path | str, key: str, reason: str) -> None:
        self.path = str(path)
        self.key = key
        self.reason = reason
        super().__init__(f"{path}: {key}: {reason}" if key else f"{path}: {reason}")


@dataclass(frozen=True)
class VerifyTargets:
    tool: str | None = None  # the tool of cases that name none
    tools: tuple[str, ...] | None = None  # only these tools' cases (default: all)
    control: Mapping[str, str] = field(default_factory=dict)  # candidate tool → its control twin
    timeout: float | None = None


@dataclass(frozen=True)
class CheckConfig:
    """Everything `check` needs, after config file and flags are merged."""

    paths: tuple[Path, ...] = (Path("."),)
    store_paths: tuple[Path, ...] | None = None
    tool_paths: tuple[Path, ...] | None = None
    exclude: tuple[str, ...] = ()
    exclude_base: Path | None = None  # the directory `exclude` is relative to (None: cwd)
    exclude_archived: bool = False
    rules: tuple[str, ...] = ()
    encoding: str = "auto"
    cases: Path | None = None
    store: bool = True
    tools: bool = True
    diff: bool = False
    report: tuple[str, ...] = ()
    jobs: int = 1
    verify: VerifyTargets = field(default_factory=VerifyTargets)
    source: Path | None = None  # the config file these values came from, if any

    @property
    def stores(self) -> tuple[Path, ...]:
        return self.store_paths if self.store_paths is not None else self.paths

    @property
    def sources(self) -> tuple[Path, ...]:
        return self.tool_paths if self.tool_paths is not None else self.paths

    def override(self, **flags: Any) -> CheckConfig:
        """Flags given on the command line (not None) replace the configured values."""
        return replace(self, **{k: v for k, v in flags.items() if v is not None})


def _report_spec(spec: str) -> str:
    """A report spec as `--report` takes it, checked now (the FILE is resolved later)."""
    from jp_migrate.report import parse_spec

    try:
        parse_spec(spec)
    except JpMigrateError as exc:
        raise ValueError(str(exc).removeprefix(f"--report {spec}: ")) from None
    return spec


def _positive(value: int) -> int:
    if value < 1:
        raise ValueError("expected a whole number of at least 1")
    return value


def _some_paths(paths: list[str]) -> list[str]:
    if not paths:
        raise ValueError("must name at least one path")
    return paths


Paths = Annotated[list[NonEmpty], AfterValidator(_some_paths)]


class VerifySection(KebabModel):
    """`[verify]`: how to run the cases (tools of the workspace's JP config)."""

    tool: NonEmpty | None = None
    tools: list[NonEmpty] | None = None
    control: dict[str, NonEmpty] = Field(default_factory=dict)
    timeout: Seconds | None = None


class ConfigTable(KebabModel):
    """The keys of a `.jp-migrate.toml` (or `[tool.jp-migrate]`), as written there."""

    cases: NonEmpty | None = None
    diff: bool | None = None
    encoding: Literal["auto", "base64", "plain"] | None = None
    exclude: list[NonEmpty] | None = None
    exclude_archived: bool | None = None
    jobs: Annotated[int, AfterValidator(_positive)] | None = None
    paths: Paths | None = None
    report: list[Annotated[NonEmpty, AfterValidator(_report_spec)]] | None = None
    rules: list[NonEmpty] | None = None
    store: bool | None = None
    store_paths: Paths | None = None
    tool_paths: Paths | None = None
    tools: bool | None = None
    verify: VerifySection | None = None


def _inside(where: Path, key: str, value: str, *, written: bool = False) -> Path:
    """`value` resolved against the config's directory, which it must not leave: a config
    (a repository's, in CI) names only what lies in its repository. What is read is judged
    by its real path (a link out is refused); what is written by its name (the write
    itself refuses a link on the way)."""
    base = where.parent
    path = base / value
    inside = (
        within(path, base) if written else within(os.path.realpath(path), os.path.realpath(base))
    )
    if not inside:
        raise ConfigError(
            where,
            key,
            f"{value!r} lies outside {base}: a config names only what is in its repository "
            "(name it on the command line instead)",
        )
    return path


def _rule(where: Path, rule: str) -> str:
    """A store rule id, or a directory of rule files (resolved against the config's directory)."""
    base = where.parent
    if "/" in rule or rule.startswith(".") or (base / rule).is_dir():
        return str(_inside(where, "rules", rule))
    return rule


def _report(where: Path, spec: str) -> str:
    """A report spec whose FILE is resolved against the config's directory."""
    from jp_migrate.report import STDOUT, parse_spec

    parsed = parse_spec(spec)
    if parsed.target == STDOUT:
        return spec
    return f"{parsed.fmt}={_inside(where, 'report', parsed.target, written=True)}"


def _verify(section: VerifySection | None) -> VerifyTargets:
    if section is None:
        return VerifyTargets()
    return VerifyTargets(
        tool=section.tool,
        tools=tuple(section.tools) if section.tools is not None else None,
        control=dict(sorted(section.control.items())),
        timeout=section.timeout,
    )


def _paths(where: Path, key: str, paths: list[str] | None) -> tuple[Path, ...] | None:
    return tuple(_inside(where, key, p) for p in paths) if paths is not None else None


def _parse(where: Path, table: Mapping[str, Any], prefix: str) -> CheckConfig:
    read = validated(
        ConfigTable, table, lambda key, why: ConfigError(where, key, why), prefix=prefix
    )
    base = where.parent
    values: dict[str, Any] = {
        "paths": _paths(where, "paths", read.paths) or (base,),
        "store_paths": _paths(where, "store-paths", read.store_paths),
        "tool_paths": _paths(where, "tool-paths", read.tool_paths),
        "rules": tuple(_rule(where, r) for r in read.rules) if read.rules is not None else None,
        "cases": _inside(where, "cases", read.cases) if read.cases is not None else None,
        "report": tuple(_report(where, s) for s in read.report)
        if read.report is not None
        else None,
        "exclude": tuple(read.exclude) if read.exclude is not None else None,
        # patterns in a file are relative to it, as in a .gitignore
        "exclude_base": base if read.exclude is not None else None,
        "verify": _verify(read.verify),
    }
    for name in ("diff", "encoding", "exclude_archived", "jobs", "store", "tools"):
        values[name] = getattr(read, name)
    return CheckConfig(source=where).override(**values)


def _read_toml(path: Path) -> dict[str, Any]:
    return read_toml(path, lambda reason: ConfigError(path, "", reason))


def _tool_table(path: Path, doc: Mapping[str, Any]) -> Mapping[str, Any] | None:
    tool = doc.get(TABLE[0])
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(path, "tool", "expected a table")
    table = tool.get(TABLE[1])
    if table is not None and not isinstance(table, dict):
        raise ConfigError(path, "tool.jp-migrate", "expected a table")
    return table


def load_config(path: Path) -> CheckConfig:
    """Read one config file (`pyproject.toml` or a `.jp-migrate.toml`-style file)."""
    doc = _read_toml(path)
    table = _tool_table(path, doc)
    if path.name == PYPROJECT:
        if table is None:
            raise ConfigError(path, "tool.jp-migrate", "missing (no [tool.jp-migrate] table)")
        return _parse(path, table, "tool.jp-migrate.")
    if table is not None:
        if set(doc) != {"tool"} or set(doc["tool"]) != {"jp-migrate"}:
            raise ConfigError(
                path, "tool.jp-migrate", "use either top-level keys or one [tool.jp-migrate] table"
            )
        return _parse(path, table, "tool.jp-migrate.")
    return _parse(path, doc, "")


def find_config(start: Path) -> Path | None:
    """The nearest `.jp-migrate.toml`, or `pyproject.toml` with `[tool.jp-migrate]`, at or above `start`."""
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / CONFIG_FILE
        if candidate.is_file():
            return candidate
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _tool_table(pyproject, _read_toml(pyproject)) is not None:
            return pyproject
    return None


def resolve_config(start: Path, explicit: Path | None) -> CheckConfig:
    """The explicit `--config` file, else the nearest one, else defaults rooted at `start`."""
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(explicit, "", "no such config file")
        return load_config(explicit)
    found = find_config(start)
    if found is None:
        return CheckConfig(paths=(start,))
    return load_config(found)
