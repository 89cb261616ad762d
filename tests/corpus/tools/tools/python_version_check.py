#!/usr/bin/env python3
"""Check .python-version against pyproject's requires-python and offer a fix."""
from __future__ import annotations

import json
import sys
import tomllib
from typing import Literal, NotRequired, TypedDict, Union


class SelectType(TypedDict):
    Select: dict[str, list[str]]


class Question(TypedDict):
    id: str
    text: str
    answer_type: Union[Literal["Boolean", "Text"], SelectType]
    default: NotRequired[str | bool | None]
    pre_amble: NotRequired[str | None]


class NeedsInput(TypedDict):
    type: Literal["needs_input"]
    question: Question


class Success(TypedDict):
    type: Literal["success"]
    content: str


class Error(TypedDict):
    type: Literal["error"]
    message: str
    trace: list[str]
    transient: bool


Outcome = Union[NeedsInput, Success, Error]


def parse_min(spec: str) -> tuple[int, ...]:
    for part in spec.split(","):
        part = part.strip()
        if part.startswith(">="):
            return tuple(int(x) for x in part[2:].split("."))
    raise ValueError(f"no lower bound in {spec!r}")


def check(pyproject: str, pinfile: str, answers: dict) -> Outcome:
    try:
        with open(pyproject, "rb") as fh:
            spec = tomllib.load(fh)["project"]["requires-python"]
        with open(pinfile) as fh:
            pinned = fh.read().strip()
        minimum = parse_min(spec)
    except (OSError, KeyError, ValueError, tomllib.TOMLDecodeError) as exc:
        return Error(type="error", message="cannot compare python versions", trace=[f"{type(exc).__name__}: {exc}"],
                     transient=False)

    pin = tuple(int(x) for x in pinned.split(".")[:2])
    if pin >= minimum[:2]:
        return Success(type="success", content=f"{pinfile} ({pinned}) satisfies requires-python {spec}")

    wanted = ".".join(map(str, minimum[:2]))
    choice = answers.get("resolve")
    if choice is None:
        q: Question = {"id": "resolve", "text": f"{pinfile} pins {pinned} but the project needs {spec}. Fix which?",
                       "answer_type": {"Select": {"options": [f"pin {wanted}", "relax requires-python"]}}}
        return NeedsInput(type="needs_input", question=q)
    if choice == f"pin {wanted}":
        return Success(type="success", content=f"run: echo {wanted} > {pinfile}")
    return Success(type="success",
                   content=f'set requires-python = ">={".".join(pinned.split(".")[:2])}" in {pyproject}')


if __name__ == "__main__":
    call = json.loads(sys.argv[1])
    a = call["arguments"]
    result = check(a.get("pyproject", "data/pyproject.toml"), a.get("pin", "data/.python-version"),
                   call.get("answers") or {})
    print(json.dumps(result))
