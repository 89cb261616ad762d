"""The codemod's transforms, as before/after pairs (SPEC §2 mapping table, row by row)."""

from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest
from conftest import REPO

from jp_migrate.codemod import migrate_source
from jp_migrate.codemod.sites import RULE_IDS
from jp_migrate.rules import discover_rules, run_examples

FIXTURES = Path(__file__).parent / "fixtures" / "codemod"


def rewrite(source: str) -> str:
    result = migrate_source(dedent(source))
    assert not result.unhandled, result.sites
    return result.output if result.output is not None else dedent(source)


def sites(source: str) -> list[str]:
    return [
        f"{s.line}:{s.column}: {s.rule}: {s.reason}" for s in migrate_source(dedent(source)).sites
    ]


PAIRS = [
    (
        "success returned",
        'def f(x):\n    return {"type": "success", "content": x}\n',
        'def f(x):\n    return {"content": [{"type": "text", "text": x}]}\n',
    ),
    (
        "success assigned, single quotes kept",
        "out = {'type': 'success', 'content': f'{n} files'}\n",
        "out = {'content': [{'type': 'text', 'text': f'{n} files'}]}\n",
    ),
    (
        "error printed via json.dumps",
        'print(json.dumps({"type": "error", "message": m, "trace": t, "transient": False}))\n',
        'print(json.dumps({"content": [{"type": "text", "text": m}], "isError": True, "_meta": {"computer.jp/error": {"trace": t, "transient": False}}}))\n',
    ),
    (
        "needs_input Text, default carried over",
        'q = {"type": "needs_input", "question": {"id": "name", "text": "Name?", "answer_type": "Text", "default": user}}\n',
        'q = {"content": [{"type": "question", "question": {"id": "name", "text": "Name?", "schema": {"type": "string"}, "default": user}}]}\n',
    ),
    (
        "serde's one-key map spelling of a unit variant",
        'q = {"type": "needs_input", "question": {"id": "ok", "text": "Ok?", "answer_type": {"Boolean": None}}}\n',
        'q = {"content": [{"type": "question", "question": {"id": "ok", "text": "Ok?", "schema": {"type": "boolean"}}}]}\n',
    ),
    (
        "dict() call success",
        'r = dict(type="success", content=render())\n',
        'r = dict(content=[{"type": "text", "text": render()}])\n',
    ),
    (
        "key by key, annotated init",
        'def f():\n    out: dict = {}\n    out["type"] = "success"\n    out["content"] = "x"\n    return out\n',
        'def f():\n    out: dict = {}\n    out["content"] = [{"type": "text", "text": "x"}]\n    return out\n',
    ),
    (
        "key by key needs_input",
        'out = {"type": "needs_input"}\nout["question"] = {"id": "go", "text": "Go?", "answer_type": "Boolean"}\n',
        'out = {}\nout["content"] = [{"type": "question", "question": {"id": "go", "text": "Go?", "schema": {"type": "boolean"}}}]\n',
    ),
    (
        "a dict that is not an Outcome is untouched",
        'event = {"type": "error", "code": 500}\nblock = {"type": "text", "text": "hi"}\n',
        'event = {"type": "error", "code": 500}\nblock = {"type": "text", "text": "hi"}\n',
    ),
    (
        "a file with nothing to do is untouched",
        "def add(a, b):\n    return a + b\n",
        "def add(a, b):\n    return a + b\n",
    ),
]


@pytest.mark.parametrize(("before", "after"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_pairs(before: str, after: str) -> None:
    assert rewrite(before) == after


@pytest.mark.parametrize("case", sorted(p.name for p in FIXTURES.iterdir()))
def test_fixture_pairs(case: str) -> None:
    before = (FIXTURES / case / "before.py").read_bytes().decode("utf-8")
    after = (FIXTURES / case / "after.py").read_bytes().decode("utf-8")
    result = migrate_source(before)
    assert result.output == after
    assert migrate_source(after).status == "unchanged"  # idempotent


def test_a_rewritten_needs_input_evaluates_pre_amble_once_and_only_emits_it_when_not_none() -> None:
    source = rewrite(
        """
        calls = []
        def preview(value):
            calls.append(value)
            return value
        def ask(value):
            return {"type": "needs_input", "question": {"id": "q", "text": "T", "pre_amble": preview(value), "answer_type": "Boolean"}}
        """
    )
    scope: dict[str, object] = {}
    exec(compile(source, "rewritten", "exec"), scope)  # noqa: S102 - running the rewritten code is the point
    ask = scope["ask"]
    assert ask("intro") == {
        "content": [
            {"type": "text", "text": "intro"},
            {
                "type": "question",
                "question": {"id": "q", "text": "T", "schema": {"type": "boolean"}},
            },
        ]
    }  # type: ignore[operator]
    assert ask(None)["content"] == [
        {"type": "question", "question": {"id": "q", "text": "T", "schema": {"type": "boolean"}}}
    ]  # type: ignore[operator,index]
    assert scope["calls"] == ["intro", None]


def test_the_rewrite_builds_what_the_foundation_converts_to() -> None:
    """Every shipped sample Outcome, written as a literal and rewritten, evaluates to outcome_to_envelope's output.

    Keys an Outcome does not know are carried over untouched (the codemod never
    drops code); both hosts ignore them, so the run still compares equal.
    """
    from jp_migrate.contract.parse import dump, parse_outcome
    from jp_migrate.convert.compare import compare
    from jp_migrate.convert.host import ToolRun, blocks_outcome, legacy_outcome
    from jp_migrate.convert.upgrade import outcome_to_envelope

    outcome_keys = {"type", "content", "message", "trace", "transient", "question"}
    for sample in sorted((REPO / "examples" / "outcomes").glob("*.json")):
        legacy = json.loads(sample.read_text("utf-8"))
        source = f"value = {legacy!r}\n"
        scope: dict[str, object] = {}
        exec(compile(rewrite(source), sample.name, "exec"), scope)  # noqa: S102 - running the rewritten code is the point
        value = json.loads(json.dumps(scope["value"]))
        expected = dump(outcome_to_envelope(parse_outcome(sample.read_bytes(), source=str(sample))))
        extra = set(legacy) - outcome_keys
        assert {k: v for k, v in value.items() if k not in extra} == expected, sample.name
        assert {k: value[k] for k in extra} == {k: legacy[k] for k in extra}
        control = legacy_outcome(ToolRun("t", json.dumps(legacy))).outcome
        candidate = blocks_outcome(ToolRun("t", json.dumps(value))).outcome
        assert compare(control, candidate).ok, sample.name


def test_a_refused_site_does_not_block_an_independent_one() -> None:
    source = """
        def ok(x):
            return {"type": "success", "content": x}

        def dynamic(kind, x):
            return {"type": kind, "content": x}
        """
    result = migrate_source(dedent(source))
    assert result.status == "migrated"
    assert result.output == dedent(source).replace(
        '{"type": "success", "content": x}', '{"content": [{"type": "text", "text": x}]}'
    )
    assert [f"{s.line}:{s.column}: {s.rule}: {s.action}" for s in result.sites] == [
        "3:12: codemod-success-dict: rewritten",
        "6:12: codemod-dynamic-type: unhandled",
    ]


def test_a_read_of_legacy_keys_blocks_the_outcome_it_sees_and_says_so() -> None:
    source = """
        def ok(x):
            return {"type": "success", "content": x}

        def fail(m):
            return {"type": "error", "message": m, "trace": [], "transient": False}

        def main():
            r = ok("hi")
            print(r.get("content"))
            print(json.dumps(fail("no")))
        """
    result = migrate_source(dedent(source))
    assert result.status == "migrated" and result.output is not None
    assert '{"type": "success", "content": x}' in result.output  # the read one stays
    assert '"isError": True' in result.output  # the independent one is rewritten
    by_line = {s.line: s for s in result.sites}
    assert by_line[3].action == "unhandled" and "read at 10:11" in by_line[3].reason
    assert (
        by_line[10].action == "unhandled"
        and "keeps 3:12 from being rewritten" in by_line[10].reason
    )
    assert by_line[6].action == "rewritten"


def test_a_type_comparison_that_cannot_be_traced_blocks_every_rewrite() -> None:
    source = """
        def ok(x):
            return {"type": "success", "content": x}

        def main(r):
            if r["type"] == "success":
                print(r)
        """
    result = migrate_source(dedent(source))
    assert result.output is None and result.status == "unchanged"
    assert [s.action for s in result.sites] == ["unhandled", "unhandled"]
    assert "6:8" in result.sites[0].reason


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('x = {"type": "success", **extra}\n', "1:5: codemod-spread"),
        (
            'r = json.loads(\'{"type": "needs_input", "question": {}}\')\n',
            "1:16: codemod-outcome-string",
        ),
        (
            'o = {"type": "success", "content": "a"}\nprint(o.get("content"))\n',
            "2:7: codemod-reads-legacy-keys",
        ),
        ('if r.get("type") == "error":\n    pass\n', "1:4: codemod-reads-legacy-keys"),
        ('o = {}\no["type"] = kind\no["content"] = "a"\n', "2:1: codemod-dynamic-type"),
        ('o["type"] = "success"\no["content"] = "a"\n', "1:1: codemod-keyed-dict"),
    ],
)
def test_unhandled(source: str, expected: str) -> None:
    assert any(site.startswith(expected) for site in sites(source)), sites(source)


def test_skip_comment_on_a_line_and_at_the_top_of_a_file() -> None:
    line = 'a = {"type": "success", "content": "x"}  # jp-migrate: skip\nb = {"type": "success", "content": "y"}\n'
    assert rewrite(line) == line.replace(
        '{"type": "success", "content": "y"}', '{"content": [{"type": "text", "text": "y"}]}'
    )
    whole = '#!/usr/bin/env python3\n# jp-migrate: skip\nb = {"type": "success", "content": "y"}\n'
    assert migrate_source(whole).status == "skipped"
    not_top = 'import json\n# jp-migrate: skip\nb = {"type": "success", "content": "y"}\n'
    assert migrate_source(not_top).status == "migrated"


@pytest.mark.parametrize("marked", [0, 1, 2])
def test_skip_comment_on_any_line_of_a_key_by_key_build(marked: int) -> None:
    """The tag line, a key's line or the `= {}` line: the whole build is left as it is."""
    lines = ["out = {}", 'out["type"] = "success"', 'out["content"] = "x"']
    lines[marked] += "  # jp-migrate: skip"
    source = "\n".join([*lines, "print(json.dumps(out))", ""])
    assert rewrite(source) == source


def test_skip_words_inside_a_string_are_no_marker() -> None:
    """Found by the property test: an Outcome whose content is "#jp-migrate:skip"."""
    source = 'x = {"type": "success", "content": "#jp-migrate:skip"}\n'
    assert rewrite(source) == 'x = {"content": [{"type": "text", "text": "#jp-migrate:skip"}]}\n'


def test_syntax_error_names_line_and_column() -> None:
    result = migrate_source('x = {"type": "success", "content": (\n')
    assert result.status == "error"
    assert result.message.startswith("1:36: syntax error")


def test_every_codemod_rule_ships_examples_that_pass() -> None:
    rules = discover_rules(kind="codemod")
    assert {r.id for r in rules} == set(RULE_IDS)
    results = run_examples(rules)
    assert results and all(r.passed for r in results), [r for r in results if not r.passed]


HELD_QUESTION = """
def ask(question):
    q = dict(question)
    return {"type": "needs_input", "question": q}
"""


def test_a_question_held_in_a_name_converts_at_run_time_as_the_foundation_does() -> None:
    """The run-time conversion (a question built key by key, or a parameter) against
    outcome_to_envelope, for every shipped needs_input sample."""
    from jp_migrate.contract.parse import dump, parse_outcome
    from jp_migrate.convert.upgrade import outcome_to_envelope

    scope: dict[str, object] = {}
    exec(compile(rewrite(HELD_QUESTION), "held", "exec"), scope)  # noqa: S102 - the point
    samples = sorted((REPO / "examples" / "outcomes").glob("*.json"))
    asked = [s for s in samples if json.loads(s.read_text("utf-8"))["type"] == "needs_input"]
    assert asked
    for sample in asked:
        legacy = json.loads(sample.read_text("utf-8"))
        value = json.loads(json.dumps(scope["ask"](legacy["question"])))  # type: ignore[operator]
        expected = dump(outcome_to_envelope(parse_outcome(sample.read_bytes(), source=str(sample))))
        assert value == expected, sample.name


def test_an_answer_type_passed_to_a_factory_maps_every_spelling_at_run_time() -> None:
    """Form 5: `ask(qid, text, answer_type)` keeps working for every call site's spelling."""
    source = (
        "def ask(kind):\n"
        '    return {"type": "needs_input", "question": {"id": "a", "text": "t", "answer_type": kind}}\n'
    )
    scope: dict[str, object] = {}
    exec(compile(rewrite(source), "factory", "exec"), scope)  # noqa: S102 - the point
    ask = scope["ask"]
    spellings = {
        "Boolean": {"type": "boolean"},
        "Text": {"type": "string"},
        json.dumps({"Boolean": None}): {"type": "boolean"},
        json.dumps({"Text": None}): {"type": "string"},
        json.dumps({"Select": {"options": ["x", "y"]}}): {"type": "string", "enum": ["x", "y"]},
    }
    for spelled, schema in spellings.items():
        kind = json.loads(spelled) if spelled.startswith("{") else spelled
        (block,) = ask(kind)["content"]  # type: ignore[operator]
        assert block["question"]["schema"] == schema, spelled


@pytest.mark.parametrize(
    ("source", "server"),
    [
        ('print(json.dumps({"type": "success", "content": "tools/call"}))\n', False),
        ('log("tools/call")\nprint(json.dumps({"type": "success", "content": "x"}))\n', False),
        (
            (
                'if method == "tools/call":\n'
                '    print(json.dumps({"type": "success", "content": "x"}))\n'
            ),
            True,
        ),
        ('HANDLERS = {"tools/call": lambda: {"type": "success", "content": "x"}}\n', True),
    ],
)
def test_a_server_is_one_that_dispatches_on_tools_call_not_one_that_says_it(
    source: str, server: bool
) -> None:
    """Found by the property test: a tool whose output text is `tools/call` was taken for a
    hand-written MCP server and its Outcome reported instead of rewritten."""
    rules = {site.rule for site in migrate_source("import json\n" + source).sites}
    assert ("codemod-mcp-server" in rules) is server
