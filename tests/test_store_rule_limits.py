"""Rule files and configs from a repository are input: a pattern that backtracks without a
linear bound, or TOML nested past any sane depth, is one line and exit 2, before any work."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, run_cli
from store_support import legacy_events, write_conversation

from jp_migrate.rules.patterns import backtracking
from jp_migrate.tomlfile import MAX_DEPTH

SHIPPED = REPO / "rules" / "store-file-resource.toml"
MARKERS_LINE = "excerpt_markers = ["


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a+)+$",  # nested quantifiers: exponential
        r"(a|a)*b",  # alternatives under a repeat: exponential
        r"(a|ab)*c",
        r"a?" * 12 + "a" * 12,  # bounded choices that multiply
        r".*.*.*x",  # unbounded repeats in a row: polynomial
        r"(a)\1",  # backreference
        r"(?=a)a",  # lookaround
        r"(?<!a)b",
        r"(a)?(?(1)a|b)",  # conditional
    ],
)
def test_patterns_without_a_linear_bound_are_refused(pattern: str) -> None:
    reason = backtracking(pattern)
    assert reason is not None and "backtrack" in reason


@pytest.mark.parametrize(
    "pattern",
    [
        r"\.\.\. \(starting from line #\d+\) \.\.\.",
        r"\.\.\. \(lines \d{1,9}-\d{1,9}\) \.\.\.",
        r"(?:starting|truncated) at \w+",
        r"(ab)*c",
        r"a++",
        r"[-=]{3,}",
    ],
)
def test_linear_patterns_are_taken(pattern: str) -> None:
    assert backtracking(pattern) is None


def test_the_shipped_markers_are_linear() -> None:
    from jp_migrate.rules import load_rule

    for pattern in load_rule(SHIPPED).match["excerpt_markers"]:
        assert backtracking(pattern) is None


def _rules_with(tmp_path: Path, text: str) -> Path:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "store-file-resource.toml").write_text(text)
    return rules


def test_a_rule_whose_marker_backtracks_stops_before_any_store(tmp_path: Path) -> None:
    """The pattern that kept a --dry-run busy past 60 s is refused at load."""
    text = SHIPPED.read_text()
    assert MARKERS_LINE in text
    rules = _rules_with(
        tmp_path, text.replace(MARKERS_LINE, "excerpt_markers = ['(x+x+)+y']\n#", 1)
    )
    path = write_conversation(tmp_path / "ws" / ".jp", "17000000001-a", legacy_events())
    before = path.read_bytes()
    result = run_cli("conversations", str(tmp_path / "ws"), "--dry-run", "--rules", str(rules))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (message,) = result.stderr.strip().splitlines()
    assert "store-file-resource.toml: match.excerpt_markers" in message
    assert "backtrack" in message
    assert path.read_bytes() == before
    tested = run_cli("rules", "test", "--rules", str(rules))
    assert tested.returncode == 1 and "Traceback" not in tested.stderr + tested.stdout


def _deep(kind: str) -> str:
    depth = MAX_DEPTH + 10 if kind == "tables" else 2000
    if kind == "arrays":
        return "x = " + "[" * depth + "]" * depth + "\n"
    if kind == "inline":
        return "x = " + "{a = " * depth + "1" + "}" * depth + "\n"
    return "[" + ".".join(["a"] * depth) + "]\nb = 1\n"


KINDS = ["arrays", "inline", "tables"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_deeply_nested_rule_file_is_one_line(tmp_path: Path, kind: str) -> None:
    rules = _rules_with(tmp_path, SHIPPED.read_text() + "\n" + _deep(kind).replace("x =", "y ="))
    write_conversation(tmp_path / "ws" / ".jp", "17000000001-a", legacy_events())
    result = run_cli("conversations", str(tmp_path / "ws"), "--rules", str(rules))
    assert result.returncode == 2, result.stderr
    (message,) = result.stderr.strip().splitlines()
    assert "store-file-resource.toml" in message and "nested deeper than" in message


@pytest.mark.parametrize("kind", KINDS)
def test_a_deeply_nested_check_config_is_one_line(tmp_path: Path, kind: str) -> None:
    workspace = tmp_path / "ws"
    write_conversation(workspace / ".jp", "17000000001-a", legacy_events())
    (workspace / ".jp-migrate.toml").write_text(_deep(kind))
    result = run_cli("check", str(workspace))
    assert result.returncode == 2, result.stdout + result.stderr  # not 1, "would change"
    (message,) = result.stderr.strip().splitlines()
    assert ".jp-migrate.toml" in message and "nested deeper than" in message


@pytest.mark.parametrize("kind", KINDS)
def test_a_deeply_nested_jp_config_is_one_line(tmp_path: Path, kind: str) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".jp").mkdir(parents=True)
    (workspace / ".jp" / "config.toml").write_text(_deep(kind))
    result = run_cli("bridge", "run", "some_tool", "--workspace", str(workspace))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    (message,) = result.stderr.strip().splitlines()
    assert "config.toml" in message and "nested deeper than" in message
