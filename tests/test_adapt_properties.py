"""Properties of the local adapter's mapping (`adapt.envelope.adapt`), on generated output:
whatever a legacy tool prints, the new host reads the envelope as the legacy host read the
output (a match or a named expected difference), and the same run prints the same bytes."""

from __future__ import annotations

import json
from typing import Any

from conftest import REPO, run_benchmark
from hypothesis import given, settings
from hypothesis import strategies as st

from jp_migrate.adapt.envelope import PASSTHROUGH, adapt
from jp_migrate.contract.jsontext import load_json
from jp_migrate.convert.compare import compare
from jp_migrate.convert.host import ToolRun, blocks_outcome, legacy_outcome

text = st.text(max_size=40)
answer_type = st.one_of(
    st.sampled_from(["Boolean", "Text"]),
    st.builds(lambda o: {"Select": {"options": o}}, st.lists(text, max_size=3)),
)
question = st.fixed_dictionaries(
    {"id": text, "text": text, "answer_type": answer_type},
    optional={"pre_amble": st.one_of(st.none(), text), "default": st.one_of(st.none(), text)},
)
outcome = st.one_of(
    st.fixed_dictionaries({"type": st.just("success"), "content": text}),
    st.fixed_dictionaries(
        {
            "type": st.just("error"),
            "message": text,
            "trace": st.lists(text, max_size=3),
            "transient": st.booleans(),
        }
    ),
    st.fixed_dictionaries({"type": st.just("needs_input"), "question": question}),
    # Near misses: a field missing or of the wrong type (the raw path).
    st.fixed_dictionaries({"type": st.just("error"), "message": text}),
    st.fixed_dictionaries({"type": st.just("success"), "content": st.integers()}),
)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)


def _printed(value: Any) -> st.SearchStrategy[str]:
    return st.sampled_from(
        [json.dumps(value), json.dumps(value, ensure_ascii=False, indent=2) + "\n"]
    )


stdout = st.one_of(
    outcome.flatmap(_printed),
    json_value.flatmap(_printed),
    st.builds(lambda blocks: json.dumps({"content": blocks}), st.lists(json_value, max_size=2)),
    text,
)


def _check(out: str, code: int) -> None:
    adapted = adapt("t", out.encode(), b"err", code)
    control = legacy_outcome(ToolRun("t", out, "err", code)).outcome
    candidate = blocks_outcome(ToolRun("t", adapted.text, "", code)).outcome
    verdict = compare(control, candidate)
    assert verdict.verdict in ("match", "expected"), (out, code, adapted.text, verdict)
    if adapted.rule == PASSTHROUGH:
        assert adapted.text == out
    else:  # one line of JSON, an envelope
        assert adapted.text.endswith("\n") and "\n" not in adapted.text[:-1]
        assert isinstance(load_json(adapted.text)["content"], list)
    assert adapt("t", out.encode(), b"err", code) == adapted


@settings(max_examples=300, deadline=None)
@given(stdout, st.sampled_from([0, 0, 1, 3, 255]))
def test_the_new_host_reads_what_the_legacy_host_read(out: str, code: int) -> None:
    _check(out, code)


def test_bench_adapt_smoke() -> None:
    """The benchmark script runs (its figures are not checked here: never a timed test)."""
    local = run_benchmark("bench_adapt.py", "-n", "1", "--limit-ms", "1e9")
    assert local.returncode == 0, local.stderr
    assert "overhead:" in local.stdout
    repo = str(REPO)
    split = run_benchmark(
        "bench_adapt.py", "-n", "1", "--limit-ms", "1e9", "--breakdown", "--against", repo
    )
    assert split.returncode == 0, split.stderr
    assert f"behind adapt of {repo}: " in split.stdout and "the run (spawn" in split.stdout
    mcp = run_benchmark("bench_adapt.py", "--mcp", "-n", "1", "--limit", "1e9")
    assert mcp.returncode == 0, mcp.stderr
    assert "ratio" in mcp.stdout
