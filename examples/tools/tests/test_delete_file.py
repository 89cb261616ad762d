from pathlib import Path

import delete_file
import pytest
from conftest import text


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    Path("notes.txt").write_text("line 1\nline 2\nline 3\nline 4\n", encoding="utf-8")
    Path("empty.txt").write_text("", encoding="utf-8")
    return tmp_path


def test_first_asks_how_with_a_preview(call_tool, workspace: Path) -> None:
    outcome = call_tool(delete_file.main, "delete_file", {"path": "notes.txt"})
    assert outcome.status == "needs_input"
    [question] = outcome.questions
    assert (question.id, question.text) == ("mode", "How should notes.txt be removed?")
    assert question.schema_ == {"type": "string", "enum": ["trash", "delete"]}
    assert text(outcome) == "line 1\nline 2\nline 3"


def test_an_empty_file_has_no_preview(call_tool, workspace: Path) -> None:
    outcome = call_tool(delete_file.main, "delete_file", {"path": "empty.txt"})
    assert outcome.status == "needs_input" and outcome.content == []


def test_then_asks_for_confirmation(call_tool, workspace: Path) -> None:
    outcome = call_tool(delete_file.main, "delete_file", {"path": "notes.txt"}, {"mode": "trash"})
    [question] = outcome.questions
    assert (question.id, question.schema_, question.default) == ("confirm", {"type": "boolean"}, False)
    assert text(outcome) == "This cannot be undone from JP."


def test_declined_keeps_the_file(call_tool, workspace: Path) -> None:
    outcome = call_tool(delete_file.main, "delete_file", {"path": "notes.txt"}, {"mode": "delete", "confirm": False})
    assert text(outcome) == "Kept notes.txt." and Path("notes.txt").exists()


def test_confirmed_trash_moves_the_file(call_tool, workspace: Path) -> None:
    outcome = call_tool(delete_file.main, "delete_file", {"path": "notes.txt"}, {"mode": "trash", "confirm": True})
    assert text(outcome) == "Moved notes.txt to .trash/notes.txt."
    assert not Path("notes.txt").exists() and Path(".trash/notes.txt").exists()


def test_confirmed_delete_removes_the_file(call_tool, workspace: Path) -> None:
    outcome = call_tool(delete_file.main, "delete_file", {"path": "notes.txt"}, {"mode": "delete", "confirm": True})
    assert text(outcome) == "Deleted notes.txt." and not Path("notes.txt").exists()


def test_a_missing_file_is_an_error(call_tool, workspace: Path) -> None:
    outcome = call_tool(delete_file.main, "delete_file", {"path": "gone.txt"})
    assert outcome.is_error and text(outcome) == "no such file: gone.txt"
