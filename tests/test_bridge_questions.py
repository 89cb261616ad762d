"""Questions are answered and the tool re-run until it completes (SPEC §1 needs_input)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from jp_migrate.bridge import questions
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.questions import AnswerSource
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


def resolve(run: Callable[[dict[str, Any]], Any], source: AnswerSource, **kwargs: Any) -> Any:
    """`questions.resolve` in an event loop of its own, for a tool that runs at once."""

    async def step(answers: dict[str, Any]) -> tuple[NormalizedOutcome, list[str]]:
        return run(answers)  # type: ignore[no-any-return]

    return anyio.run(functools.partial(questions.resolve, step, source, **kwargs))


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


def test_an_optional_field_asked_again_is_offered_to_leave_out_again() -> None:
    """A form that asks its optional field again (a two-step form reusing the name): the
    terminal's "answer it?" comes first again; it had gone straight to the field."""
    from jp_migrate.bridge.questions import OMITTED, FormAnswers

    nick = {"id": "nick", "text": "Nickname?", "schema": {"type": "string"}, "default": None}
    calls: list[tuple[str, str]] = []
    seen: list[dict[str, Any]] = []

    def step(answers: dict[str, Any]) -> tuple[NormalizedOutcome, list[str]]:
        seen.append(answers)
        return (outcome([nick]) if len(seen) < 3 else outcome(text="done")), []

    def ask(question: Any) -> Any:
        calls.append(("ask", question.id))
        return "typed"

    def wants(question: Any) -> bool:
        calls.append(("wants", question.id))
        return False

    source = FormAnswers({}, ask, wants, optional=frozenset({"nick"}))
    resolution = resolve(step, source)
    assert resolution.outcome.text == "done"
    assert calls == [("wants", "nick"), ("wants", "nick")]  # never typed in
    assert seen[1]["nick"] is OMITTED and seen[2]["nick"] is OMITTED


def test_a_prompt_shows_brackets_and_control_characters_as_written(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Form text is the server's: `[/tmp]` was read as rich markup (a MarkupError ended the
    run) and an escape sequence reached the terminal."""
    from jp_migrate.bridge.questions import terminal_wants
    from jp_migrate.contract.normalized import NormalizedQuestion

    monkeypatch.setattr("builtins.input", lambda *args: "n")
    question = NormalizedQuestion.model_validate(
        {"id": "dir", "text": "Path [/tmp] \x1b]0;T\x07 ok?", "schema": {"type": "string"}}
    )
    assert terminal_wants(question) is False
    shown = capsys.readouterr().out
    assert "Path [/tmp] \\x1b]0;T\\x07 ok? ('dir' is optional) Answer it?" in shown
    assert "\x1b]" not in shown


def test_a_question_whose_schema_is_invalid_is_one_error_naming_it() -> None:
    from jp_migrate.bridge.errors import BridgeError
    from jp_migrate.bridge.questions import checked
    from jp_migrate.contract.normalized import NormalizedQuestion

    question = NormalizedQuestion.model_validate(
        {"id": "q", "text": "Go?", "schema": {"type": "not-a-type"}}
    )
    with pytest.raises(BridgeError, match=r"^question 'q' \(Go\?\) has an invalid schema: "):
        checked(question, True)
