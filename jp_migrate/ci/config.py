"""Project configuration: `[tool.jp-migrate]` in `pyproject.toml`, or a `.jp-migrate.toml`.

A `.jp-migrate.toml` holds the keys at its top level (or under `[tool.jp-migrate]`,
so one table can be moved between the two files). Relative paths in a config
file resolve against the file's directory; command-line flags override keys.

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from jp_migrate.errors import JpMigrateError
from jp_migrate.seconds import is_seconds
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


def _strings(where: Path, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(where, key, "expected a list of non-empty strings")
    return tuple(value)


def _string(where: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(where, key, "expected a non-empty string")
    return value


def _bool(where: Path, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(where, key, "expected true or false")
    return value


def _positive_int(where: Path, key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(where, key, "expected a whole number of at least 1")
    return value


def _rules(where: Path, key: str, value: Any) -> tuple[str, ...]:
    """Store rule ids, or directories of rule files (those resolve against the config's directory)."""
    return tuple(
        str(where.parent / rule)
        if "/" in rule or rule.startswith(".") or (where.parent / rule).is_dir()
        else rule
        for rule in _strings(where, key, value)
    )


def _reports(where: Path, key: str, value: Any) -> tuple[str, ...]:
    """Report specs, checked now; a FILE resolves against the config's directory."""
    from jp_migrate.report import STDOUT, parse_spec

    specs = []
    for spec in _strings(where, key, value):
        try:
            parsed = parse_spec(spec)
        except JpMigrateError as exc:
            raise ConfigError(where, key, str(exc).removeprefix(f"--report {spec}: ")) from None
        if parsed.target != STDOUT:
            spec = f"{parsed.fmt}={where.parent / parsed.target}"
        specs.append(spec)
    return tuple(specs)


ENCODINGS = ("auto", "base64", "plain")  # StoreOptions.encoding


def _encoding(where: Path, key: str, value: Any) -> str:
    if value not in ENCODINGS:
        raise ConfigError(where, key, f"{value!r} is not one of {', '.join(ENCODINGS)}")
    return str(value)


def _paths(where: Path, key: str, value: Any) -> tuple[Path, ...]:
    paths = tuple(where.parent / p for p in _strings(where, key, value))
    if not paths:
        raise ConfigError(where, key, "must name at least one path")
    return paths


def _verify(where: Path, key: str, value: Any) -> VerifyTargets:
    if not isinstance(value, dict):
        raise ConfigError(where, key, "expected a table with tool, tools, control, timeout")
    unknown = sorted(set(value) - {"tool", "tools", "control", "timeout"})
    if unknown:
        raise ConfigError(
            where, f"{key}.{unknown[0]}", "unknown key (expected tool, tools, control, timeout)"
        )
    timeout = value.get("timeout")
    if timeout is not None and not is_seconds(timeout):
        raise ConfigError(where, f"{key}.timeout", "expected a number of seconds above 0")
    control = value.get("control", {})
    if not isinstance(control, dict) or not all(isinstance(v, str) and v for v in control.values()):
        raise ConfigError(where, f"{key}.control", 'expected a table of tool = "control tool"')
    return VerifyTargets(
        tool=_string(where, f"{key}.tool", value["tool"]) if "tool" in value else None,
        tools=_strings(where, f"{key}.tools", value["tools"]) if "tools" in value else None,
        control=dict(sorted(control.items())),
        timeout=float(timeout) if timeout is not None else None,
    )


def _parse(where: Path, table: Mapping[str, Any], prefix: str) -> CheckConfig:
    base = where.parent
    readers: dict[str, tuple[str, Callable[[Path, str, Any], Any]]] = {
        "paths": ("paths", _paths),
        "store-paths": ("store_paths", _paths),
        "tool-paths": ("tool_paths", _paths),
        "exclude": ("exclude", _strings),
        "exclude-archived": ("exclude_archived", _bool),
        "rules": ("rules", _rules),
        "encoding": ("encoding", _encoding),
        "cases": ("cases", lambda w, k, v: base / _string(w, k, v)),
        "store": ("store", _bool),
        "tools": ("tools", _bool),
        "diff": ("diff", _bool),
        "report": ("report", _reports),
        "jobs": ("jobs", _positive_int),
        "verify": ("verify", _verify),
    }
    values: dict[str, Any] = {}
    for key in sorted(table):
        if key not in readers:
            raise ConfigError(
                where,
                f"{prefix}{key}",
                f"unknown key (expected one of {', '.join(sorted(readers))})",
            )
        name, read = readers[key]
        values[name] = read(where, f"{prefix}{key}", table[key])
    values.setdefault("paths", (base,))
    if "exclude" in values:
        values["exclude_base"] = base  # patterns in a file are relative to it, as in a .gitignore
    return CheckConfig(source=where, **values)


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
