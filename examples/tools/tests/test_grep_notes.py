import json
from pathlib import Path

import _outcome
import grep_notes
import pytest
from conftest import outcome_of, text


@pytest.fixture
def notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plan.md").write_text("# Plan\nship the codemod\nthen the bridge\n", encoding="utf-8")
    (tmp_path / "todo.txt").write_text("write tests for the codemod\n", encoding="utf-8")
    (tmp_path / "code.py").write_text("codemod = True\n", encoding="utf-8")
    return tmp_path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]):
    assert grep_notes.main(["grep_notes.py", *argv]) == 0
    return outcome_of("grep_notes", capsys.readouterr().out)


def test_helpers_build_what_the_host_reads() -> None:
    ok = outcome_of("t", json.dumps(_outcome.success("fine")))
    assert (ok.is_error, text(ok)) == (False, "fine")
    bad = outcome_of("t", json.dumps(_outcome.failure("broken", "cause 1", transient=True)))
    assert (bad.is_error, bad.transient, bad.trace, text(bad)) == (True, True, ["cause 1"], "broken")


def test_matches_in_notes_only(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run(["codemod", "."], capsys)
    assert not outcome.is_error
    assert text(outcome) == "docs/plan.md:2: ship the codemod\ntodo.txt:1: write tests for the codemod"


def test_no_match(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert text(run(["nothing here", "null"], capsys)) == "no matches for 'nothing here'"


def test_an_invalid_pattern_is_an_error_with_a_trace(notes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run(["(unclosed", "."], capsys)
    assert outcome.is_error and not outcome.transient
    assert text(outcome) == "invalid pattern '(unclosed'"
    assert outcome.trace[0].startswith("re.error: missing )")
