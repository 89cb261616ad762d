"""The example tools' own tests: run a tool's `main` in-process and read what it printed.

The assertions go through the host semantics of `jp_migrate.convert.host`, so
they hold for the legacy tools and for the tools `jp-migrate tools` rewrote:
a tool's behaviour, not its wire format, is what they pin.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jp_migrate.contract.normalized import NormalizedOutcome
from jp_migrate.contract.parse import try_outcome
from jp_migrate.convert.host import ToolRun, blocks_outcome, legacy_outcome
from jp_migrate.convert.render import render

TOOLS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOOLS))

Main = Callable[[list[str]], int]


def outcome_of(name: str, stdout: str) -> NormalizedOutcome:
    """What JP makes of the tool's stdout, through whichever protocol the tool speaks."""
    run = ToolRun(name=name, stdout=stdout)
    host = legacy_outcome if try_outcome(stdout) is not None else blocks_outcome
    return host(run).outcome


def text(outcome: NormalizedOutcome) -> str:
    """The non-question content as the model sees it (the message, for an error)."""
    return render(outcome.content)


@pytest.fixture
def call_tool(capsys: pytest.CaptureFixture[str]) -> Callable[..., NormalizedOutcome]:
    def call(main: Main, name: str, arguments: dict[str, Any], answers: dict[str, Any] | None = None) -> NormalizedOutcome:
        context = {"name": name, "arguments": arguments, "answers": answers or {}, "options": {}}
        assert main(["tool", json.dumps(context)]) == 0
        return outcome_of(name, capsys.readouterr().out)

    return call
