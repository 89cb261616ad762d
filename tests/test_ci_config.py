"""Project configuration for `check`: where it is found, what it accepts, how flags override it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jp_migrate.ci.config import CheckConfig, ConfigError, find_config, load_config, resolve_config


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_every_key_of_a_jp_migrate_toml(tmp_path: Path) -> None:
    cfg = load_config(
        write(
            tmp_path / ".jp-migrate.toml",
            """
paths = ["."]
store-paths = ["ws"]
tool-paths = ["tools", "lib"]
exclude = ["tests/**"]
exclude-archived = true
rules = ["store-x", "team-rules/"]
encoding = "plain"
cases = "cases.jsonl"
store = false
tools = true
diff = true
report = ["markdown=summary.md"]
jobs = 2

[verify]
tool = "calc"
tools = ["calc", "greet"]
timeout = 5
[verify.control]
greet = "greet_jp"
""",
        )
    )
    assert cfg.paths == (tmp_path / ".",)
    assert cfg.stores == (tmp_path / "ws",)
    assert cfg.sources == (tmp_path / "tools", tmp_path / "lib")
    assert (cfg.exclude, cfg.exclude_archived, cfg.rules, cfg.encoding) == (
        ("tests/**",),
        True,
        ("store-x", str(tmp_path / "team-rules/")),
        "plain",
    )
    assert cfg.cases == tmp_path / "cases.jsonl"
    assert (cfg.store, cfg.tools, cfg.diff, cfg.report, cfg.jobs) == (
        False,
        True,
        True,
        (f"markdown={tmp_path / 'summary.md'}",),  # a report file is relative to the config
        2,
    )
    assert cfg.exclude_base == tmp_path
    assert (cfg.verify.tool, cfg.verify.tools, cfg.verify.timeout) == (
        "calc",
        ("calc", "greet"),
        5.0,
    )
    assert cfg.verify.control == {"greet": "greet_jp"}
    assert cfg.source == tmp_path / ".jp-migrate.toml"


def test_defaults_root_paths_at_the_config_directory(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path / "ws" / ".jp-migrate.toml", "diff = true\n"))
    assert cfg.paths == (tmp_path / "ws",)
    assert cfg.stores == cfg.sources == cfg.paths
    assert cfg.cases is None and cfg.store and cfg.tools


def test_pyproject_table(tmp_path: Path) -> None:
    cfg = load_config(
        write(
            tmp_path / "pyproject.toml",
            '[project]\nname = "x"\n[tool.jp-migrate]\nexclude = ["a"]\n',
        )
    )
    assert cfg.exclude == ("a",)


def test_a_pyproject_without_the_table_is_an_error_when_named(tmp_path: Path) -> None:
    path = write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    with pytest.raises(ConfigError, match=r"pyproject.toml: tool.jp-migrate: missing"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("exlcude = ['a']\n", r"\.jp-migrate\.toml: exlcude: unknown key"),
        ("exclude = 'a'\n", r"exclude: expected a list, got a string"),
        ("exclude = ['']\n", r"exclude\[0\]: expected a non-empty string"),
        ("diff = 'yes'\n", r"diff: expected true or false"),
        ("jobs = 0\n", r"jobs: expected a whole number of at least 1"),
        ("encoding = 'utf8'\n", r"encoding: 'utf8' is not one of auto, base64, plain"),
        ("paths = []\n", r"paths: must name at least one path"),
        ("cases = ''\n", r"cases: expected a non-empty string"),
        ("[verify]\nbefor = 'x'\n", r"verify\.befor: unknown key"),
        ("[verify.control]\na = 1\n", r"verify\.control\.a: expected a string, got an integer"),
        ("verify = 1\n", r"verify: expected a table, got an integer"),
        ("[verify]\ntimeout = -1\n", r"verify\.timeout: expected a number of seconds above 0"),
        ("[verify]\ntimeout = nan\n", r"verify\.timeout: expected a number of seconds above 0"),
        ("[verify]\ntimeout = inf\n", r"verify\.timeout: expected a number of seconds above 0"),
        ("paths = [\n", r"\.jp-migrate\.toml: invalid TOML"),
        ("report = ['xml']\n", r"\.jp-migrate\.toml: report\[0\]: unknown report format 'xml'"),
        ("report = ['json=']\n", r"report\[0\]: missing file name after '='"),
    ],
)
def test_bad_values_name_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path / ".jp-migrate.toml", text))


def test_pyproject_errors_name_the_full_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"pyproject.toml: tool\.jp-migrate\.jobs: expected"):
        load_config(write(tmp_path / "pyproject.toml", "[tool.jp-migrate]\njobs = 'many'\n"))


def test_discovery_walks_up_and_prefers_jp_migrate_toml(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.jp-migrate]\ndiff = true\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_config(deep) == (tmp_path / "pyproject.toml").resolve()
    write(tmp_path / ".jp-migrate.toml", "diff = false\n")
    assert find_config(deep) == (tmp_path / ".jp-migrate.toml").resolve()


def test_a_pyproject_without_our_table_is_passed_over(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')
    ws = tmp_path / "ws"
    ws.mkdir()
    assert find_config(ws) is None  # (nothing above a pytest tmp dir configures jp-migrate)
    assert resolve_config(ws, None) == CheckConfig(paths=(ws,))


def test_an_explicit_config_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such config file"):
        resolve_config(tmp_path, tmp_path / "nope.toml")


def test_flags_override_only_what_was_given() -> None:
    base = CheckConfig(exclude=("a",), diff=False, store=True, encoding="plain")
    out = base.override(exclude=("b",), diff=None, store=False, encoding=None)
    assert (out.exclude, out.diff, out.store, out.encoding) == (("b",), False, False, "plain")


def test_a_rules_directory_named_without_a_slash_is_the_config_s(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    cfg = load_config(write(tmp_path / ".jp-migrate.toml", 'rules = ["rules", "store-x"]\n'))
    assert cfg.rules == (str(tmp_path / "rules"), "store-x")
