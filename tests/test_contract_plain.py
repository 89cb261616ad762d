"""The plain (pydantic-free) readings agree with the models wherever they answer.

`contract.plain.outcome_shape`, `convert.host.plain_legacy`/`plain_raw` and
`bridge.modes.plain_local` let `bridge run --json` skip pydantic; they must
never answer differently from `try_outcome`, `read_envelope` and the host
functions built on the models.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from jp_migrate.bridge.modes import HOST_MODES, plain_local
from jp_migrate.bridge.protocol import interpret_local
from jp_migrate.contract.outcome import OutcomeError, OutcomeSuccess
from jp_migrate.contract.parse import dump, parse_outcome, read_envelope, try_outcome
from jp_migrate.contract.plain import envelope_candidate, outcome_shape
from jp_migrate.convert.host import (
    ToolRun,
    blocks_outcome,
    legacy_outcome,
    plain_blocks,
    plain_legacy,
    raw_outcome,
)
from jp_migrate.errors import ContractError

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
# Values of the right and the wrong types for every Outcome field, and stray keys.
field_values = {
    "type": st.sampled_from(["success", "error", "needs_input", "Success", "text", ""])
    | json_values,
    "content": st.text(max_size=8)
    | json_values
    | st.lists(
        st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=5)}), max_size=2
    ),
    "message": st.text(max_size=8) | json_values,
    "trace": st.lists(st.text(max_size=5), max_size=3)
    | st.lists(json_values, max_size=2)
    | json_values,
    "transient": st.booleans() | json_values,
    "question": st.fixed_dictionaries(
        {
            "id": st.text(max_size=3),
            "text": st.text(max_size=3),
            "answer_type": st.sampled_from(["Boolean", "Text", "Number"]),
        }
    )
    | json_values,
    "isError": st.booleans() | json_values,
    "extra": json_values,
}
# Outcome-shaped objects: each field present or not, usually of the right type.
outcome_like = st.sampled_from(["success", "error", "needs_input"]).flatmap(
    lambda kind: st.fixed_dictionaries(
        {"type": st.just(kind)},
        optional={
            "content": st.text(max_size=5) | json_values,
            "message": st.text(max_size=5) | json_values,
            "trace": st.lists(st.text(max_size=3), max_size=2)
            | st.lists(st.text(max_size=3) | json_values, min_size=1, max_size=2)
            | json_values,
            "transient": st.booleans() | json_values,
            "question": field_values["question"],
            "extra": json_values,
        },
    )
)
documents = (
    outcome_like
    | st.lists(st.sampled_from(sorted(field_values)), unique=True).flatmap(
        lambda keys: st.fixed_dictionaries({k: field_values[k] for k in keys})
    )
    | json_values
)


def _models_outcome(obj: Any) -> Any:
    """The models' reading alone (`parse_outcome`; `try_outcome` uses `outcome_shape` first)."""
    try:
        return parse_outcome(json.dumps(obj))
    except ContractError:
        return None


@settings(max_examples=400, deadline=None)
@given(documents)
def test_outcome_shape_agrees_with_the_models(obj: Any) -> None:
    shape = outcome_shape(obj)
    outcome = _models_outcome(obj)
    assert try_outcome(json.dumps(obj)) == outcome
    if shape == "none":
        assert outcome is None
    elif shape == "success":
        assert isinstance(outcome, OutcomeSuccess) and outcome.content == obj["content"]
    elif shape == "error":
        assert isinstance(outcome, OutcomeError)
        assert (outcome.message, outcome.trace, outcome.transient) == (
            obj["message"],
            obj["trace"],
            obj["transient"],
        )
    if isinstance(obj, dict):
        assert envelope_candidate(obj) == (read_envelope(json.dumps(obj)) is not None)


stdouts = (
    documents.map(json.dumps)
    | st.text(max_size=20)
    | st.sampled_from(['{"type":"success"', "NaN", '{"content": [1]}', ""])
)
runs = st.builds(
    ToolRun,
    name=st.just("t"),
    stdout=stdouts,
    stderr=st.text(max_size=5),
    exit_code=st.none() | st.integers(-2, 3),
)


@settings(max_examples=400, deadline=None)
@given(runs, st.sampled_from(HOST_MODES))
def test_plain_local_is_the_models_reading(run: ToolRun, mode: Any) -> None:
    plain = plain_local(run, mode)
    if plain is None:
        return
    normalized = interpret_local(run, mode)
    assert normalized.warnings == []
    assert plain == dump(normalized.outcome)
    # and it is what the CLI prints: the same JSON text
    assert json.dumps(plain, indent=2, ensure_ascii=False) == json.dumps(
        dump(normalized.outcome), indent=2, ensure_ascii=False
    )


@settings(max_examples=200, deadline=None)
@given(runs)
def test_plain_legacy_is_legacy_outcome(run: ToolRun) -> None:
    plain = plain_legacy(run)
    if plain is not None:
        assert plain == dump(legacy_outcome(run).outcome)


def test_plain_reading_answers_the_common_shapes() -> None:
    """Success, error, plain-text envelopes and raw are read plainly; the rest goes to the models."""
    ok = ToolRun("t", '{"type":"success","content":"hi","extra":1}')
    assert plain_local(ok, "auto") == dump(legacy_outcome(ok).outcome)
    err = ToolRun("t", '{"type":"error","message":"m","trace":["a"],"transient":true}', exit_code=1)
    assert plain_local(err, "legacy") == dump(legacy_outcome(err).outcome)
    raw = ToolRun("t", "plain text", stderr="e", exit_code=3)
    assert plain_local(raw, "auto") == dump(raw_outcome(raw))
    envelope = ToolRun(
        "t", '{"content":[{"type":"text","text":"x"},{"type":"text","text":"y"}],"isError":true}'
    )
    for mode in ("auto", "blocks"):
        assert plain_local(envelope, mode) == dump(blocks_outcome(envelope).outcome)
    assert plain_local(envelope, "auto")["text"] == "x\n\ny"  # type: ignore[index]
    assert plain_local(envelope, "legacy") == dump(raw_outcome(envelope))
    for other in (
        '{"content":[{"type":"text","text":"x","annotations":{}}]}',  # a block with more keys
        '{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}',
        '{"content":[],"_meta":{"computer.jp/error":{"transient":true}}}',
        '{"content":[],"isError":1}',
        '{"content":[{"type":"question","question":{"id":"q","text":"?","schema":{}}}]}',
    ):
        assert plain_local(ToolRun("t", other), "auto") is None, other
    asks = ToolRun(
        "t", '{"type":"needs_input","question":{"id":"q","text":"?","answer_type":"Boolean"}}'
    )
    assert plain_local(asks, "auto") is None
    assert plain_local(ToolRun("t", "x", cancelled=True), "auto") is None


def test_bridge_run_json_does_not_import_pydantic(tmp_path: Any) -> None:
    """The local `bridge run --json` path answers without loading pydantic, rich or the MCP SDK."""
    tool = tmp_path / "tool.py"
    tool.write_text('import json\nprint(json.dumps({"type": "success", "content": "hi"}))\n')
    probe = (
        "import sys, runpy\n"
        "sys.argv = ['jp-migrate', 'bridge', 'run', '--json', '--name', 't', '--command', "
        f"{sys.executable + ' ' + str(tool)!r}]\n"
        "try:\n    runpy.run_module('jp_migrate', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'rich', 'mcp', 'jsonschema', 'pygments'))\n"
        "print('LOADED', loaded, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert '"text": "hi"' in done.stdout, done.stderr
    assert "LOADED []" in done.stderr, done.stderr


envelope_like = st.fixed_dictionaries(
    {
        "content": st.lists(
            st.fixed_dictionaries({"type": st.just("text"), "text": st.text(max_size=4)})
            | st.fixed_dictionaries(
                {"type": st.sampled_from(["text", "image"]), "text": json_values},
                optional={"annotations": json_values},
            )
            | json_values,
            max_size=3,
        )
    },
    optional={
        "isError": st.booleans() | json_values,
        "_meta": st.fixed_dictionaries(
            {}, optional={"computer.jp/error": st.fixed_dictionaries({"transient": st.booleans()})}
        )
        | json_values,
        "meta": json_values,
    },
)


@settings(max_examples=300, deadline=None)
@given(envelope_like, st.none() | st.integers(0, 2))
def test_plain_blocks_is_blocks_outcome(obj: Any, exit_code: int | None) -> None:
    run = ToolRun("t", json.dumps(obj), exit_code=exit_code)
    plain = plain_blocks(run)
    if plain is not None:
        normalized = blocks_outcome(run)
        assert normalized.warnings == []
        assert plain == dump(normalized.outcome)


def test_the_fast_path_reads_the_models_shapes() -> None:
    # plain.py reads the shipped schema, which is generated from these models.
    from jp_migrate.contract import plain
    from jp_migrate.contract.outcome import (
        LegacyQuestion,
        OutcomeError,
        OutcomeNeedsInput,
        OutcomeSuccess,
    )

    variants = {"success": OutcomeSuccess, "error": OutcomeError, "needs_input": OutcomeNeedsInput}
    assert plain.OUTCOME_FIELDS == {
        tag: tuple(name for name in model.model_fields if name != "type")
        for tag, model in variants.items()
    }
    assert plain.QUESTION_FIELDS == tuple(LegacyQuestion.model_fields)


def test_a_repeated_field_beside_deep_nesting_is_no_outcome() -> None:
    """The repeat check parses the text a second time, a few frames deeper than the first:
    nesting the first parse just managed must give no Outcome, not a RecursionError."""
    from jp_migrate.contract.plain import outcome_reading

    for depth in range(900, 1100, 3):
        nested = "[" * depth + "]" * depth
        text = f'{{"type":"success","content":"a","content":"b","z":{nested}}}'
        assert outcome_reading(text) is None
