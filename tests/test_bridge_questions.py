"""Questions are answered and the tool re-run until it completes (SPEC §1 needs_input)."""

from __future__ import annotations

from typing import Any

import pytest

from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.questions import AnswerSource, resolve
from jp_migrate.contract.normalized import NormalizedOutcome


def outcome(questions: list[dict[str, Any]] | None = None, text: str = "done") -> NormalizedOutcome:
    return NormalizedOutcome.model_validate(
        {
            "protocol": "blocks",
            "status": "needs_input" if questions else "completed",
            "is_error": False,
            "transient": False,
            "trace": [],
            "content": [],
            "questions": questions or [],
            "text": text,
            "exit_code": 0,
            "stderr": "",
        }
    )


Q1 = {"id": "confirm", "text": "Apply?", "schema": {"type": "boolean"}, "default": None}
Q2 = {
    "id": "color",
    "text": "Colour?",
    "schema": {"type": "string", "enum": ["r", "g"]},
    "default": "g",
}


class Tool:
    """Asks Q1, then Q2, then completes with the answers it got."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, answers: dict[str, Any]) -> tuple[NormalizedOutcome, list[str]]:
        self.calls.append(answers)
        for q in (Q1, Q2):
            if q["id"] not in answers:
                return outcome([q]), []
        return outcome(text=f"{answers['confirm']} {answers['color']}"), []


def test_reruns_with_accumulated_answers_and_falls_back_to_defaults() -> None:
    tool = Tool()
    resolution = resolve(tool, AnswerSource(given={"confirm": True}))
    assert resolution.outcome.text == "True g"
    assert tool.calls == [{}, {"confirm": True}, {"confirm": True, "color": "g"}]
    assert [r.status for r in resolution.rounds] == ["needs_input", "needs_input", "completed"]


def test_answers_given_up_front_are_passed_on_the_first_run() -> None:
    tool = Tool()
    resolve(
        tool,
        AnswerSource(given={"confirm": False, "color": "r"}),
        answers={"confirm": False, "color": "r"},
    )
    assert tool.calls == [{"confirm": False, "color": "r"}]


def test_missing_answer_without_default_names_the_question() -> None:
    with pytest.raises(BridgeError, match=r"question 'confirm' \(Apply\?\) has no answer"):
        resolve(Tool(), AnswerSource())


def test_an_interactive_asker_is_used_before_defaults() -> None:
    asked: list[str] = []

    def ask(q: Any) -> Any:
        asked.append(q.id)
        return {"confirm": False, "color": "r"}[q.id]

    assert resolve(Tool(), AnswerSource(ask=ask)).outcome.text == "False r"
    assert asked == ["confirm", "color"]


def test_a_tool_that_keeps_asking_stops_with_an_error() -> None:
    def stubborn(answers: dict[str, Any]) -> tuple[NormalizedOutcome, list[str]]:
        return outcome([Q1]), []

    with pytest.raises(BridgeError, match="asked again"):
        resolve(stubborn, AnswerSource(given={"confirm": True}))


def test_anything_else_is_answered_in_the_editor(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    import sys

    from jp_migrate.bridge.questions import terminal_asker
    from jp_migrate.contract.normalized import NormalizedQuestion

    editor = tmp_path / "editor.py"
    editor.write_text(
        "import json, sys\n"
        "doc = json.load(open(sys.argv[1]))\n"
        "assert doc['schema'] == {'type': 'integer'} and doc['answer'] == 3\n"
        "doc['answer'] = 42\n"
        "json.dump(doc, open(sys.argv[1], 'w'))\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    question = NormalizedQuestion.model_validate(
        {"id": "n", "text": "How many?", "schema": {"type": "integer"}, "default": 3}
    )
    assert terminal_asker(question) == 42
