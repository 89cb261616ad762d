"""Invariants of the codemod: exact positions, a pre-check that never skips a site, faithful rewrites."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from conftest import REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from libcst.metadata import MetadataWrapper, PositionProvider

from jp_migrate.codemod import migrate_source
from jp_migrate.codemod.positions import Locator
from jp_migrate.codemod.precheck import may_contain_outcome
from jp_migrate.codemod.scan import scan
from jp_migrate.contract.parse import dump, parse_outcome
from jp_migrate.convert.upgrade import outcome_to_envelope
from jp_migrate.rules import discover_rules

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SAMPLES = [
    STDLIB / n
    for n in ("argparse.py", "json/decoder.py", "string.py", "dataclasses.py", "textwrap.py")
]


@pytest.mark.parametrize("path", [p for p in SAMPLES if p.exists()], ids=lambda p: p.name)
def test_fast_positions_agree_with_libcst(path: Path) -> None:
    """The `ast`-twin positions equal PositionProvider's for every dict, call, subscript and string."""
    source = path.read_text("utf-8")
    module = cst.parse_module(source)
    found = scan(module)
    locator = Locator(source, module, found)
    exact = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = (
        [n for n, _ in found.dicts]
        + [n for n, _ in found.calls]
        + [n for n, _ in found.subscripts]
        + found.strings
    )
    assert nodes
    for node in nodes:
        fast = locator._from_ast(node)
        assert fast is not None, type(node).__name__
        assert (fast.line, fast.column) == (exact[node].start.line, exact[node].start.column + 1)


def _inputs_with_sites() -> list[str]:
    sources = [ex.input for rule in discover_rules(kind="codemod") for ex in rule.examples]
    sources += [
        p.read_text("utf-8") for p in (REPO / "tests" / "fixtures" / "codemod").rglob("before.py")
    ]
    sources += [p.read_text("utf-8") for p in (REPO / "examples" / "tools").glob("*.py")]
    return [s for s in sources if migrate_source(s, precheck=False).sites]


def test_the_pre_check_never_skips_a_file_with_a_site() -> None:
    sources = _inputs_with_sites()
    assert len(sources) > 20
    for source in sources:
        assert may_contain_outcome(source), source


texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
quotes = st.sampled_from(['"', "'"])


def _literal(value: Any, quote: str) -> str:
    """A Python literal for a JSON value, strings in the given quote style."""
    if isinstance(value, str):
        body = json.dumps(value, ensure_ascii=False)[1:-1]
        if quote == "'":
            body = body.replace('\\"', '"').replace("'", "\\'")
        return f"{quote}{body}{quote}"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v, quote) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{_literal(k, quote)}: {_literal(v, quote)}" for k, v in value.items())
            + "}"
        )
    return repr(value)


outcomes = st.one_of(
    st.builds(lambda c: {"type": "success", "content": c}, texts),
    st.builds(
        lambda m, t, tr: {"type": "error", "message": m, "trace": t, "transient": tr},
        texts,
        st.lists(texts, max_size=3),
        st.booleans(),
    ),
    st.builds(
        lambda i, t, p, a, d: {
            "type": "needs_input",
            "question": {
                "id": i,
                "text": t,
                "pre_amble": p,
                "answer_type": a,
                **({} if d is None else {"default": d}),
            },
        },
        texts,
        texts,
        st.none() | texts,
        st.sampled_from(["Boolean", "Text"])
        | st.builds(lambda o: {"Select": {"options": o}}, st.lists(texts, max_size=3)),
        st.none() | st.booleans(),
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outcomes, quotes)
def test_a_rewritten_literal_evaluates_to_the_foundations_envelope(
    outcome: dict[str, Any], quote: str
) -> None:
    source = f"value = {_literal(outcome, quote)}\n"
    assert may_contain_outcome(source)
    result = migrate_source(source)
    assert result.status == "migrated" and result.output is not None, result.sites
    scope: dict[str, Any] = {}
    exec(compile(result.output, "<rewritten>", "exec"), scope)  # noqa: S102 - running the rewritten code is the point
    expected = dump(
        outcome_to_envelope(parse_outcome(json.dumps(outcome).encode(), source="<literal>"))
    )
    assert json.loads(json.dumps(scope["value"])) == expected
    assert migrate_source(result.output).status == "unchanged"
