"""A `**fields` builder is known by what it really calls (QualifiedNameProvider), not by its spelling."""

from __future__ import annotations

import pytest

from jp_migrate.codemod import migrate_source

BUILDER = """import sys
{import_line}


def outcome(**fields):
    print({dump}(fields))


def main():
    outcome(type="success", content="done")
"""


@pytest.mark.parametrize(
    ("import_line", "dump"),
    [
        ("from json import dumps as emit", "emit"),  # an alias: spelt nothing like json.dumps
        ("import json as j", "j.dumps"),
        ("from json import dumps", "dumps"),
    ],
)
def test_builder_dumping_json_however_imported_is_rewritten(import_line: str, dump: str) -> None:
    result = migrate_source(BUILDER.format(import_line=import_line, dump=dump))
    assert [(s.rule, s.action) for s in result.sites] == [("codemod-dict-call", "rewritten")]
    assert result.output is not None
    assert 'outcome(content=[{"type": "text", "text": "done"}])' in result.output


@pytest.mark.parametrize(
    "import_line", ["from pickle import dumps", "from marshal import dumps", "import sys as json"]
)
def test_builder_spelt_dumps_but_not_json_is_reported(import_line: str) -> None:
    """`dumps` of pickle is no JSON: its keywords are not an Outcome's to rewrite."""
    dump = "json.dumps" if "as json" in import_line else "dumps"
    result = migrate_source(BUILDER.format(import_line=import_line, dump=dump))
    assert [(s.rule, s.action) for s in result.sites] == [("codemod-dict-call", "unhandled")]
    assert result.output is None
