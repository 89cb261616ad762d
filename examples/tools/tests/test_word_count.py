from pathlib import Path

import pytest
import word_count
from conftest import text


def test_counts_lines_words_and_characters() -> None:
    assert word_count.count("one two\nthree\n") == "2 lines, 3 words, 14 characters"
    assert word_count.count("no newline") == "1 lines, 2 words, 10 characters"
    assert word_count.count("") == "0 lines, 0 words, 0 characters"


def test_a_file(call_tool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("notes.md").write_text("# Zoë\nsome words here\n", encoding="utf-8")
    outcome = call_tool(word_count.main, "word_count", {"path": "notes.md"})
    assert outcome.status == "completed" and not outcome.is_error
    assert text(outcome) == "notes.md: 2 lines, 5 words, 22 characters"


def test_a_missing_file_is_a_permanent_error(call_tool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    outcome = call_tool(word_count.main, "word_count", {"path": "missing.txt"})
    assert outcome.is_error and not outcome.transient
    assert text(outcome) == "no such file: missing.txt"
