"""The rule loader: a malformed rule file is one `RuleError` naming the file, the key and the reason.

Also `jp-migrate rules list` / `rules test` through the CLI on a scratch rules directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

from jp_migrate.errors import RuleError
from jp_migrate.rules import discover_rules, load_rule, run_examples

EVENT = '{"timestamp": "t", "type": "tool_call_response", "id": "x", "content": "b2s=", "is_error": false}'
MIGRATED = """[
  {
    "timestamp": "t",
    "type": "tool_call_response",
    "id": "x",
    "content": [
      {
        "type": "text",
        "text": "b2s="
      }
    ],
    "is_error": false
  }
]"""

GOOD = f"""\
id = "store-faithful-text"
description = "Wraps a stored response faithfully."
kind = "store"

[match]
event = "tool_call_response"

[produce]
content = "one text block"

[[examples]]
name = "standard base64"
input = '[{EVENT}]'
output = '''{MIGRATED}'''
"""


def write(directory: Path, text: str, name: str = "store-faithful-text") -> Path:
    """A scratch rule file (its id is the one store rule that needs no registered code)."""
    path = directory / f"{name}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def edit(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


# (what is wrong, the rule text, the key named, words of the reason)
BAD: list[tuple[str, str, str, str]] = [
    ("bad TOML", GOOD + "\nthis is = = not toml\n", "", "invalid TOML"),
    ("missing id", edit('id = "store-faithful-text"\n', ""), "id", "missing"),
    ("missing description", edit('description = "Wraps a stored response faithfully."\n', ""), "description", "missing"),
    ("missing kind", edit('kind = "store"\n', ""), "kind", "missing"),
    ("missing match", edit('[match]\nevent = "tool_call_response"\n', ""), "match", "missing"),
    ("missing produce", edit('[produce]\ncontent = "one text block"\n', ""), "produce", "missing"),
    ("missing examples", GOOD[: GOOD.index("[[examples]]")], "examples", "at least one [[examples]]"),
    ("id of the wrong type", edit('id = "store-faithful-text"', "id = 7"), "id", "expected a string, got an integer"),
    ("empty description", edit('description = "Wraps a stored response faithfully."', 'description = " "'), "description", "got an empty string"),
    ("match not a table", edit('[match]\nevent = "tool_call_response"\n', 'match = "events"\n'), "match", "expected a table, got a string"),
    ("unknown kind", edit('kind = "store"', 'kind = "magic"'), "kind", "'magic' is not one of store, codemod"),
    ("enabled_by_default not a boolean", edit('kind = "store"', 'kind = "store"\nenabled_by_default = "yes"'), "enabled_by_default", "expected true or false, got a string"),
    ("unknown top-level key", edit('kind = "store"', 'kind = "store"\nauthor = "me"'), "author", "unknown key"),
    ("id not kebab-case", edit('id = "store-faithful-text"', 'id = "My_Rule"'), "id", "not kebab-case"),
    ("id is not the file name", edit('id = "store-faithful-text"', 'id = "other-rule"'), "id", "must match the file name 'store-faithful-text'"),
    ("example without output or reports", edit("output = '''", "unused = '''"), "examples[0].unused", "unknown key"),
    ("example with neither output nor reports", GOOD[: GOOD.index("output = '''")], "examples[0]", "needs an `output` or `reports`"),
    ("example without input", edit(f"input = '[{EVENT}]'\n", ""), "examples[0].input", "missing"),
    ("example input not a string", edit(f"input = '[{EVENT}]'", "input = 3"), "examples[0].input", "expected a string, got an integer"),
    ("example reports not strings", edit("output = '''", "reports = [1]\noutput = '''"), "examples[0].reports[0]", "expected a string, got an integer"),
    ("example output not a string", GOOD[: GOOD.index("output = '''")] + "output = 1\n", "examples[0].output", "expected a string"),
    ("example name not a string", edit('name = "standard base64"', "name = true"), "examples[0].name", "expected a string"),
    ("examples not tables", GOOD[: GOOD.index("[[examples]]")].replace('kind = "store"', 'kind = "store"\nexamples = [1]'), "examples[0]", "expected a table"),
]


@pytest.mark.parametrize(("what", "text", "key", "reason"), BAD, ids=[b[0] for b in BAD])
def test_malformed_rule_names_file_key_and_reason(tmp_path: Path, what: str, text: str, key: str, reason: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(RuleError) as caught:
        load_rule(path)
    error = caught.value
    assert (error.path, error.key) == (str(path), key)
    assert reason in error.reason
    assert str(error) == (f"{path}: {key}: {error.reason}" if key else f"{path}: {error.reason}")


def test_non_utf8_rule_file(tmp_path: Path) -> None:
    path = tmp_path / "store-faithful-text.toml"
    path.write_bytes(b'id = "\xff"\n')
    with pytest.raises(RuleError, match="not valid UTF-8"):
        load_rule(path)


def test_duplicate_id_names_both_files(tmp_path: Path) -> None:
    first = write(tmp_path / "a", GOOD)
    second = write(tmp_path / "b", GOOD)
    with pytest.raises(RuleError) as caught:
        discover_rules(tmp_path)
    assert (caught.value.path, caught.value.key) == (str(second), "id")
    assert caught.value.reason == f"'store-faithful-text' is also defined in {first}"


def test_not_a_directory(tmp_path: Path) -> None:
    with pytest.raises(RuleError, match="not a directory"):
        discover_rules(tmp_path / "missing")


def test_a_good_rule_loads_and_its_example_passes(tmp_path: Path) -> None:
    rule = load_rule(write(tmp_path, GOOD))
    assert (rule.id, rule.kind, rule.enabled_by_default, rule.match) == ("store-faithful-text", "store", False, {"event": "tool_call_response"})
    assert [e.name for e in rule.examples] == ["standard base64"]
    assert [r.passed for r in run_examples([rule])] == [True]


def test_a_wrong_expected_output_fails_with_the_difference(tmp_path: Path) -> None:
    rule = load_rule(write(tmp_path, GOOD.replace('"text": "b2s="', '"text": "b2s"')))
    (result,) = run_examples([rule])
    assert not result.passed
    assert "expected output" in result.detail and '"text": "b2s="' in result.detail


def test_missing_reports_fail(tmp_path: Path) -> None:
    rule = load_rule(write(tmp_path, GOOD.replace("output = '''", "reports = [\"never-reported\"]\noutput = '''")))
    (result,) = run_examples([rule])
    assert not result.passed and "never-reported" in result.detail


# --- through the CLI ----------------------------------------------------------------------------


def test_cli_rules_list(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    write(tmp_path, GOOD.replace("store-faithful-text", "other-rule").replace('kind = "store"', 'kind = "store"\nenabled_by_default = true'), "other-rule")
    done = run_cli("rules", "list", "--rules", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "other-rule\tstore\ton\tWraps a stored response faithfully.",
        "store-faithful-text\tstore\topt-in\tWraps a stored response faithfully.",
    ]


def test_cli_rules_test_passes(tmp_path: Path) -> None:
    write(tmp_path, GOOD)
    done = run_cli("rules", "test", "--rules", str(tmp_path), "-v")
    assert (done.returncode, done.stdout.splitlines()) == (0, ["ok   store-faithful-text: standard base64", "rules: 1 passed, 0 failed"])


def test_cli_rules_test_fails_with_exit_1(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace('"text": "b2s="', '"text": "wrong"'))
    done = run_cli("rules", "test", "--rules", str(tmp_path))
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == "FAIL store-faithful-text: standard base64"
    assert done.stdout.splitlines()[-1] == "rules: 0 passed, 1 failed"


@pytest.mark.parametrize("command", ["list", "test"])
def test_cli_malformed_rule_is_one_line_exit_2(tmp_path: Path, command: str) -> None:
    path = write(tmp_path, edit('kind = "store"', 'kind = "magic"'))
    done = run_cli("rules", command, "--rules", str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"error: {path}: kind: 'magic' is not one of store, codemod"]
    assert done.stdout == ""


def test_cli_shipped_rules_are_listed() -> None:
    done = run_cli("rules", "list")
    assert done.returncode == 0, done.stderr
    ids = [line.split("\t")[0] for line in done.stdout.splitlines()]
    assert "store-faithful-text" in ids and ids == sorted(ids)
