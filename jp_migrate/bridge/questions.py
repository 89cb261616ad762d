"""Answer a tool's questions and re-run it until it completes (SPEC §1 `needs_input`, RFD 058 questions).

Answers come, in order, from what the user passed (`--answers`, an answers
file), then a terminal prompt when stdin and stdout are a TTY, then the
question's default; otherwise the run stops with an error naming the question.
Every answer is checked against the question's JSON Schema before it is sent.

One flow for every source of questions (RFD 058): a local tool's `question`
blocks and legacy `needs_input`, and MCP elicitation (bridge.forms), whether it
arrives during a call or in an `input_required` result.
"""

from __future__ import annotations

import json
import os
import select
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TextIO, cast

import anyio

from jp_migrate.bridge.edge import POLL_SECONDS, STOPPED, Stopped
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.contract.jsontext import load_json
from jp_migrate.errors import ContractError
from jp_migrate.visible import visible

if TYPE_CHECKING:
    from jp_migrate.contract.normalized import NormalizedOutcome, NormalizedQuestion

MAX_ROUNDS = 25
OMITTED: Any = object()  # the answer to an optional form field nobody answered: left out


class Asker(Protocol):
    def __call__(self, question: NormalizedQuestion) -> Any: ...


def _describe(question: NormalizedQuestion) -> str:
    """`question 'id' (its text)`, on one line: an error naming it stays one line."""
    return f"question {question.id!r} ({' '.join(question.text.split())})"


@dataclass
class AnswerSource:
    """Where answers come from, in order: given answers, an interactive asker, the default."""

    given: Mapping[str, Any] = field(default_factory=dict)
    ask: Asker | None = None
    # For a question that may go unanswered (an optional MCP form field): whether the user
    # wants to answer it at all (a terminal asks). None: it is asked like any other.
    wants: Callable[[NormalizedQuestion], bool] | None = None

    def answer(self, question: NormalizedQuestion) -> Any:
        if question.id in self.given:
            return checked(question, self.given[question.id])
        if self.ask is not None:
            return checked(question, self.ask(question))
        if question.default is not None:
            return checked(question, question.default)
        raise BridgeError(
            f"{_describe(question)} has no answer and no default; pass it with --answers "
            f"'{{\"{question.id}\": …}}' or run on a terminal"
        )

    def ask_again(self, question: NormalizedQuestion) -> Any:
        """A question asked again after it was answered: only an asker can answer anew."""
        assert self.ask is not None
        return checked(question, self.ask(question))

    async def get(self, question: NormalizedQuestion, *, again: bool = False) -> Any:
        """`answer` (or `ask_again`); with an asker (a terminal prompt), in a worker thread,
        so that the event loop goes on meanwhile (a server's progress, a signal)."""
        pick = self.ask_again if again else self.answer
        if self.ask is None:
            return pick(question)
        return await anyio.to_thread.run_sync(pick, question)


def checked(question: NormalizedQuestion, value: Any) -> Any:
    """`value` when it fits the question's JSON Schema; else a BridgeError naming the
    question and the first violation (a tool or server must never get an answer it did
    not ask for)."""
    from jsonschema import exceptions, validators

    schema = question.schema_
    try:
        validator = validators.validator_for(schema)
        validator.check_schema(schema)
    except exceptions.SchemaError as exc:
        raise BridgeError(
            f"{_describe(question)} has an invalid schema: {' '.join(exc.message.split())}"
        ) from None
    error = exceptions.best_match(validator(schema).iter_errors(value))
    if error is not None:
        where = "".join(f"[{part!r}]" for part in error.absolute_path)
        raise BridgeError(
            f"{_describe(question)}: the answer {json.dumps(value, ensure_ascii=False)} "
            f"does not fit its schema{f' at {where}' if where else ''}: "
            f"{' '.join(error.message.split())}"
        )
    return value


@dataclass
class FormAnswers(AnswerSource):
    """Answers for MCP forms (MCP forms mark optional fields): a field the form does not
    require, with no answer given, is left out (OMITTED) when the user says so (`wants`,
    at a terminal), or with no one to ask and no default."""

    optional: frozenset[str] = frozenset()

    def answer(self, question: NormalizedQuestion) -> Any:
        if question.id in self.optional and question.id not in self.given:
            if self.ask is None and question.default is None:
                return OMITTED
            if self.ask is not None and self._declined(question):
                return OMITTED
        return super().answer(question)

    def ask_again(self, question: NormalizedQuestion) -> Any:
        if question.id in self.optional and self._declined(question):
            return OMITTED
        return super().ask_again(question)

    def _declined(self, question: NormalizedQuestion) -> bool:
        """The user said not to answer this optional field (asked at a terminal)."""
        return self.wants is not None and not self.wants(question)


def answered(answers: Mapping[str, Any]) -> dict[str, Any]:
    """The answers to send: without the optional fields left out."""
    return {key: value for key, value in answers.items() if value is not OMITTED}


@dataclass
class Resolution:
    outcome: NormalizedOutcome
    answers: dict[str, Any]
    rounds: list[NormalizedOutcome]  # every run, the final one last
    warnings: list[str] = field(default_factory=list)
    wire: dict[str, Any] | None = None  # an MCP tool's final tools/call result, as sent


async def resolve(
    run: Callable[[dict[str, Any]], Awaitable[tuple[NormalizedOutcome, list[str]]]],
    source: AnswerSource,
    *,
    answers: Mapping[str, Any] | None = None,
    max_rounds: int = MAX_ROUNDS,
) -> Resolution:
    """Run, answer every open question, re-run with the accumulated answers, until done."""
    accumulated: dict[str, Any] = dict(answers or {})
    rounds: list[NormalizedOutcome] = []
    warnings: list[str] = []
    asked: set[str] = set()
    while True:
        outcome, run_warnings = await run(dict(accumulated))
        rounds.append(outcome)
        warnings += run_warnings
        if outcome.status != "needs_input" or not outcome.questions:
            return Resolution(outcome, accumulated, rounds, warnings)
        if len(rounds) >= max_rounds:
            raise BridgeError(f"still asking questions after {max_rounds} runs; giving up")
        for question in outcome.questions:
            if question.id in asked and source.ask is None:
                # Answered and asked again: re-running with the same answer would loop.
                raise BridgeError(f"{_describe(question)} was asked again after it was answered")
            again = question.id in asked and source.ask is not None
            accumulated[question.id] = await source.get(question, again=again)
            asked.add(question.id)


# ── interactive asking ────────────────────────────────────────────────────────


def is_interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


class _Stdin:
    """What a prompt reads, in a worker thread: the next line of stdin, or Stopped once the
    run is stopping (a signal reaches the event loop, and a blocked read would never end)."""

    def readline(self) -> str:
        try:
            fd = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # not a file (a test's stand-in)
            fd = None
        while fd is not None and not select.select([fd], [], [], POLL_SECONDS)[0]:
            if STOPPED.is_set():
                raise Stopped
        return input()  # as rich reads a line itself (no newline: an empty line is a default)


_STDIN = cast("TextIO", _Stdin())  # rich reads a stream's `readline` only


def _prompt_bool(question: NormalizedQuestion) -> bool:
    from rich.prompt import Confirm

    default = question.default if isinstance(question.default, bool) else ...
    return bool(Confirm.ask(_shown(question.text), default=default, stream=_STDIN))


def _prompt_select(question: NormalizedQuestion, options: list[str]) -> str:
    from rich.console import Console
    from rich.prompt import Prompt

    console = Console()
    console.print(_shown(question.text))
    for number, option in enumerate(options, 1):
        console.print(f"  {number}. {_shown(option)}")
    numbers = [str(n) for n in range(1, len(options) + 1)]
    default = str(options.index(question.default) + 1) if question.default in options else ...
    choice = Prompt.ask(
        "Choose", choices=numbers + options, default=default, show_choices=False, stream=_STDIN
    )
    return options[int(choice) - 1] if choice in numbers else choice


def _shown(text: str) -> str:
    """A tool's or server's text as a prompt shows it: control characters visible, and any
    `[...]` as written (not read as rich markup, which could also fail to parse)."""
    from rich.markup import escape

    return escape(visible(text))


def terminal_wants(question: NormalizedQuestion) -> bool:
    """At a terminal, before an optional question: answer it, or leave it out?"""
    from rich.prompt import Confirm

    label = " ".join(question.text.split())
    prompt = f"{label} ({question.id!r} is optional) Answer it?"
    return bool(Confirm.ask(_shown(prompt), default=False, stream=_STDIN))


def _prompt_text(question: NormalizedQuestion) -> str:
    from rich.prompt import Prompt

    default = question.default if isinstance(question.default, str) else ...
    return str(Prompt.ask(_shown(question.text), default=default, stream=_STDIN))


def _edit(question: NormalizedQuestion) -> Any:
    """Anything without a simple prompt (a schema of type object, array, number…): a JSON
    document in $EDITOR."""
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    seed = {
        "question": question.text,
        "schema": question.schema_,
        "answer": question.default,
    }
    with tempfile.NamedTemporaryFile("w+", suffix=".json", delete=False, encoding="utf-8") as fh:
        json.dump(seed, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
        path = fh.name
    try:
        status = subprocess.call([*shlex.split(editor), path])
        if status != 0:
            raise BridgeError(
                f"editor {editor!r} exited with status {status}", source=_describe(question)
            )
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    finally:
        os.unlink(path)
    try:
        edited = load_json(text)
    except ContractError as exc:
        raise BridgeError(
            f"the edited answer is not JSON: {exc.reason}", source=_describe(question)
        ) from None
    return edited.get("answer") if isinstance(edited, dict) and "answer" in edited else edited


def terminal_asker(question: NormalizedQuestion) -> Any:
    """yes/no for boolean, a select for an enum, text for string, $EDITOR for anything else."""
    schema = question.schema_
    kind = schema.get("type")
    options = schema.get("enum")
    if isinstance(options, list) and options and all(isinstance(o, str) for o in options):
        return _prompt_select(question, [str(o) for o in options])
    if kind == "boolean":
        return _prompt_bool(question)
    if kind == "string":
        return _prompt_text(question)
    return _edit(question)
