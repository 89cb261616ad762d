"""Help texts in the user's words: no internal references, the protocols explained once."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from jp_migrate.cli import COMMANDS, cli

PAGES = [[], *([name] for name in sorted(COMMANDS)), ["bridge", "run"], ["rules", "list"]]
INTERNAL = (
    "SPEC",
    "§",
    "control",
    "candidate",
    "normalized outcome",
    "both protocols",
    "either protocol",
)


def page(args: list[str]) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("args", PAGES, ids=lambda a: " ".join(a) or "jp-migrate")
def test_no_help_page_speaks_the_projects_internals(args: list[str]) -> None:
    text = " ".join(page(args).split())
    for word in INTERNAL:
        assert word not in text, (args, word)


def test_the_protocols_are_named_and_explained_once_at_the_top() -> None:
    top = page([])
    assert "A JP tool reports its result in one of two protocols:" in top
    assert 'legacy   an Outcome JSON object: {"type": "success", "content": "…"}' in top
    assert "RFD 058  an envelope of content blocks:" in top
    assert all(len(line) <= 80 for line in top.splitlines())
    mentions = sum(page(args).count("D31") for args in PAGES)
    assert mentions == 1  # the legacy protocol's MCP form, named where it is explained


def test_the_two_verifies_have_two_names() -> None:
    assert "--check-integrity" in page(["conversations"])
    assert "--verify " not in page(["conversations"])
    assert "before and after its migration" in page(["verify"])
