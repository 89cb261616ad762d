"""`adapt.plain_result` answers as the exact paths do, wherever it answers.

Control and candidate (Scientist's vocabulary): the SDK's models
(`d31_calls.sdk_call_result`) against the plain layout (`d31_calls.call_result`),
and `contract.plain.outcome_reading` against `plain_result.outcome_reading`. Each
observation is cleaned into types and values (`_typed`: `1`, `1.0` and `True`
differ), an exception into its type and message, and every mismatch fails with
the input that made it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache, partial
from typing import Any
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from jp_migrate.adapt import d31_calls, outcome_result, plain_result
from jp_migrate.contract import plain

VERSIONS = (None, *KNOWN_PROTOCOL_VERSIONS)
ANY_VERSION = st.sampled_from([*VERSIONS, "2099-01-01", ""])


def _typed(value: Any) -> Any:
    """`value` with every scalar's type beside it, and a mapping's keys in order of name."""
    if isinstance(value, dict):
        return ("dict", sorted((repr(k), _typed(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_typed(v) for v in value])
    return (type(value).__name__, repr(value))


def _observe(run: Callable[[], Any]) -> Any:
    try:
        return ("value", _typed(run()))
    except Exception as exc:  # noqa: BLE001 (the exception is the observation)
        return ("raises", type(exc).__name__, str(exc))


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@cache
def _layout(version: str | None) -> plain_result.Layout:
    shape = plain_result.layout(partial(d31_calls.sdk_call_result, version))
    assert shape is not None
    return shape


# Characters JSON and UTF-8 treat specially: quotes, escapes, controls, a BOM, lone and
# paired surrogates (which `st.characters()` almost never draws).
special = st.sampled_from(
    ['"', "\\", "/", "\x00", "\x1f", "\x7f", "é", "🌱", "\u2028", "\ufeff"]
    + ["\ud800", "\udfff", "\ud83d", "\ude00"]
)
texts = st.text(st.characters() | special, max_size=8)
utf8_texts = texts.filter(_utf8)
meta_keys = utf8_texts | st.sampled_from(
    ["io.modelcontextprotocol/serverInfo", "io_modelcontextprotocol_server_info"]
    + ["computer.jp/error", "progressToken"]
)
# Integers on both sides of 64 bits, and one past a double's range.
integers = st.integers() | st.integers(2**63 - 2, 2**64 + 2) | st.integers(-(2**64), -(2**63) + 2)
big_integers = integers | st.just(10**400)

plain_json = st.recursive(
    st.none()
    | st.booleans()
    | big_integers
    | st.floats(allow_nan=False, allow_infinity=False)
    # -0.0 and subnormals are finite floats like any other
    | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(meta_keys, inner, max_size=3),
    max_leaves=8,
)
any_json = st.recursive(
    st.none() | st.booleans() | big_integers | st.floats() | texts,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.dictionaries(texts | st.integers(0, 3), inner, max_size=3)
    ),
    max_leaves=8,
)

text_block = st.fixed_dictionaries({"type": st.just("text"), "text": texts})
plain_results = st.fixed_dictionaries(
    {"content": st.lists(text_block, max_size=3)},
    optional={
        "isError": st.booleans(),
        "_meta": st.dictionaries(meta_keys, plain_json.filter(lambda v: v is not None), max_size=4),
        "resultType": st.just("complete"),
    },
)
odd_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "Text"]) | any_json, "text": texts | any_json},
    optional={"annotations": st.none() | st.just({}), "_meta": any_json, "mimeType": texts},
)
# Each field of the right or the wrong kind, and keys a plain result never has.
results = st.fixed_dictionaries(
    {},
    optional={
        "content": st.lists(text_block | odd_block, max_size=3) | any_json,
        "isError": st.booleans() | any_json,
        "_meta": st.dictionaries(meta_keys | texts, any_json, max_size=4) | any_json,
        "resultType": st.sampled_from(["complete", "input_required", "Complete"]) | any_json,
        "structuredContent": any_json,
        "is_error": st.booleans(),
        "extra": any_json,
    },
)

# A plain result with one thing changed: the fast path must see each.
odd_values = any_json | st.sampled_from(["input_required", "Complete", 0, 1, "true", None])
near_plain = st.one_of(
    st.builds(
        lambda data, key, value: {**data, key: value},
        plain_results,
        st.sampled_from(["content", "isError", "_meta", "resultType", "structuredContent"]),
        odd_values,
    ),
    st.builds(
        lambda data, block: {**data, "content": [*data["content"], block]},
        plain_results,
        odd_block | odd_values,
    ),
)


@settings(max_examples=300, deadline=None)
@given(plain_results, st.sampled_from(VERSIONS))
def test_a_plain_result_is_answered_as_the_sdk_answers_it(data: Any, version: Any) -> None:
    control = d31_calls.sdk_call_result(version, data)
    candidate = plain_result.call_result(_layout(version), data)
    assert candidate is not None, data  # plain: the fast path answers
    assert _typed(candidate) == _typed(control), (version, data)
    assert list(candidate) == list(control)  # the same keys in the same order
    assert [list(b) for b in candidate["content"]] == [list(b) for b in control["content"]]
    assert _typed(d31_calls.call_result(version, data)) == _typed(control)


@settings(max_examples=500, deadline=None)
@given(results | near_plain | plain_results, ANY_VERSION)
def test_any_result_is_answered_as_the_sdk_answers_it(data: Any, version: Any) -> None:
    control = _observe(lambda: d31_calls.sdk_call_result(version, data))
    candidate = _observe(lambda: d31_calls.call_result(version, data))
    assert candidate == control, (version, data)


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for level in range(depth):
        value = {"k": value} if level % 2 else [value]
    return value


@pytest.mark.parametrize(
    "meta",
    [
        {"computer.jp/error": {"transient": True, "trace": ["a", "b"]}},
        {},
        {"k": None},  # the 2026-07-28 model drops it, the others keep it
        {"k": [None, {"n": None}]},
        {"k": float("nan")},
        {"k": [float("inf"), -0.0, 5e-324]},
        {"k": {1: "int key"}},
        {"k": (1, 2)},
        {"\ud800": 1},  # a lone surrogate key: replaced at the top, refused below
        {"k": {"\udfff": 1}},
        {"k": "\ud800 value"},
        {"io.modelcontextprotocol/serverInfo": None},
        {"z": 1, "io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}},
        {"k": 2**64 + 1, "n": -(2**70), "big": 10**400},
        # pydantic refuses to serialize past some 255 levels
        *({"k": _nested(depth)} for depth in (*range(60, 67), *range(250, 260))),
        None,
        [],
        "text",
    ],
)
@pytest.mark.parametrize("version", [*VERSIONS, "2099-01-01"])
def test_meta_as_the_sdk_writes_it(meta: Any, version: Any) -> None:
    data = {"content": [{"type": "text", "text": "x"}], "isError": True, "_meta": meta}
    control = _observe(lambda: d31_calls.sdk_call_result(version, data))
    assert _observe(lambda: d31_calls.call_result(version, data)) == control


def test_a_version_whose_result_has_another_field_gets_no_layout() -> None:
    assert plain_result.layout(lambda data: {**data, "structuredContent": None}) is None
    assert plain_result.layout(lambda data: dict(data)) is not None


# ── the reading ──

TAGS = ["success", "error", "needs_input", "Success", "text"]
# Raw JSON values (and some that are not JSON) for any field.
value_texts = st.one_of(
    st.builds(json.dumps, plain_json, ensure_ascii=st.booleans()),
    st.builds(json.dumps, st.lists(texts, max_size=3), ensure_ascii=st.booleans()),
    st.sampled_from(
        [f'"{t}"' for t in TAGS]
        + ["true", "false", "null", "[]", "{}", '["a","b"]', "0", "-0", "-0.0", "1.5"]
        + ["18446744073709551615", "18446744073709551616", "-9223372036854775809"]
        + ["1" * 309, "1" * 310, "17976931348623158" + "0" * 292, "1e308", "1.8e308"]
        + ["1e400", "1e-400", "NaN", "Infinity", "-Infinity", "01", "1."]
        + ['"\\ud800"', '"\\udc00\\ud800"', '"\\ud83d\\ude00"', '"\\u00e9"', '"a\\u0000"']
        + ['"\x01"', '"\ud800"', "[" * 40 + "]" * 40, '{"type": "success"}']
    ),
)
key_texts = st.sampled_from(
    ['"type"', '"content"', '"message"', '"trace"', '"transient"', '"question"']
    + ['"cont\\u0065nt"', '"typ\\u0065"', '"extra"', '"n"', '"id"', '"text"']
)
members = st.tuples(key_texts, value_texts)
spaces = st.sampled_from(["", " ", "\n\t"])


def _object(pairs: list[tuple[str, str]], space: str) -> str:
    return "{" + f",{space}".join(f"{k}:{space}{v}" for k, v in pairs) + "}"


objects = st.builds(
    lambda tag, rest, space: _object([tag, *rest], space),
    st.tuples(st.just('"type"'), st.sampled_from([f'"{t}"' for t in TAGS]) | value_texts),
    st.lists(members, max_size=5),
    spaces,
)
sequences = st.builds(
    lambda tag, rest: "[" + ",".join([tag, *rest]) + "]",
    st.sampled_from([f'"{t}"' for t in TAGS]),
    st.lists(value_texts, max_size=4),
)
# A success's or an error's fields, of the right types (what orjson reads alone).
string_texts = st.builds(json.dumps, texts, ensure_ascii=st.booleans())
right_fields = {
    "success": {'"content"': string_texts},
    "error": {
        '"message"': string_texts,
        '"trace"': st.builds(json.dumps, st.lists(texts, max_size=3), ensure_ascii=st.booleans()),
        '"transient"': st.sampled_from(["true", "false"]),
    },
}


def _plain_members(tag: str) -> st.SearchStrategy[list[tuple[str, str]]]:
    """The variant's members in any order; now and then a stray or repeated one among them."""
    fields = st.fixed_dictionaries({'"type"': st.just(f'"{tag}"'), **right_fields[tag]})
    strays: st.SearchStrategy[list[tuple[str, str]]] = (
        st.just([]) | st.just([]) | st.lists(members, min_size=1, max_size=2)
    )
    return st.tuples(fields, strays).flatmap(lambda t: st.permutations([*t[0].items(), *t[1]]))


plain_objects = st.builds(
    _object, st.sampled_from(["success", "error"]).flatmap(_plain_members), spaces
)
plain_sequences = st.one_of(
    st.builds(lambda c: f'["success",{c}]', string_texts),
    st.builds(
        lambda m, t, b: f'["error",{m},{t},{b}]',
        *right_fields["error"].values(),
    ),
)
outcomes = st.one_of(
    st.fixed_dictionaries({"type": st.just("success"), "content": texts | plain_json}),
    st.fixed_dictionaries(
        {
            "type": st.just("error"),
            "message": texts | plain_json,
            "trace": st.lists(texts, max_size=3) | plain_json,
            "transient": st.booleans() | plain_json,
        },
        optional={"extra": plain_json},
    ),
    st.fixed_dictionaries(
        {"type": st.just("needs_input"), "question": st.just({"id": "q", "text": "?"})}
    ),
)
documents = st.one_of(
    st.builds(json.dumps, outcomes, ensure_ascii=st.booleans()),
    plain_objects,
    plain_objects,
    plain_sequences,
    objects,
    sequences,
    texts,
)
outcome_texts = st.one_of(
    documents,
    # Around a document: a BOM, whitespace JSON allows and some it does not, trailing data.
    st.builds(
        lambda before, doc, after: before + doc + after,
        st.sampled_from(["", "\ufeff", " \t\r\n", "\x0c", "\xa0"]),
        documents,
        st.sampled_from(["", "\n", " x", "}", "\x00", ",1"]),
    ),
)


def _check_reading(text: str) -> None:
    control = _observe(lambda: plain.outcome_reading(text))
    assert _observe(lambda: plain_result.outcome_reading(text)) == control, text


@settings(max_examples=1000, deadline=None)
@given(outcome_texts)
def test_the_reading_is_the_exact_reading(text: str) -> None:
    _check_reading(text)


DEEP = 1020  # within orjson's nesting limit (1024), past the standard library's


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"success","content":"done"}',
        '["success","done"]',
        '["success"]',
        '["error","failed",["at x"],true]',
        '{"type":"success","content":"a","content":"b"}',
        '{"type":"success","cont\\u0065nt":"a","content":"b"}',
        '{"type":"success","content":"a","extra":1,"extra":2}',
        '{"type":"success","content":"a","n":18446744073709551617}',
        '{"type":"success","content":"a","n":' + "1" * 309 + "}",
        '{"type":"success","content":"a","n":1797693134862315808' + "0" * 290 + "}",
        '{"type":"success","content":"a","n":1e400}',
        '{"type":"success","content":"a","n":NaN}',
        '{"type":"success","content":"\\ud800"}',
        '{"type":"success","content":"\ud800"}',
        '{"type":"success","content":"a\x01"}',
        '\ufeff{"type":"success","content":"a"}',
        '{"type":"success","content":"a"} x',
        '{"type":"error","message":"m","trace":[],"transient":1}',
        '{"type":"needs_input","question":{"id":"q","text":"?","answer_type":"Boolean"}}',
        '{"type":"success","content":"a","extra":' + "[" * DEEP + "]" * DEEP + "}",
        '{"type":"success","content":' + "[" * DEEP + "]" * DEEP + ',"content":"a"}',
        "[" * DEEP + "]" * DEEP,
        "",
        "not json",
    ],
)
def test_the_reading_of(text: str) -> None:
    _check_reading(text)


plain_outcomes = st.one_of(
    st.fixed_dictionaries({"type": st.just("success"), "content": utf8_texts}),
    st.fixed_dictionaries(
        {
            "type": st.just("error"),
            "message": utf8_texts,
            "trace": st.lists(utf8_texts, max_size=3),
            "transient": st.booleans(),
        }
    ),
)


@settings(max_examples=200, deadline=None)
@given(plain_outcomes, st.booleans())
def test_a_plain_outcome_is_read_by_orjson_alone(outcome: Any, ascii: bool) -> None:
    text = json.dumps(outcome, ensure_ascii=ascii)
    with mock.patch.object(plain_result, "exact_reading", side_effect=AssertionError(text)):
        candidate = plain_result.outcome_reading(text)
    assert _typed(candidate) == _typed(plain.outcome_reading(text))


# ── a D31 result end to end: read, converted, answered ──

d31_results = st.fixed_dictionaries(
    {"content": st.builds(lambda text: [{"type": "text", "text": text}], outcome_texts)},
    optional={
        "isError": st.booleans(),
        "_meta": st.dictionaries(meta_keys, plain_json, max_size=2),
        "structuredContent": plain_json,
    },
)


@settings(max_examples=300, deadline=None)
@given(d31_results, st.sampled_from(VERSIONS))
def test_a_d31_result_converts_as_the_exact_paths_convert_it(result: Any, version: Any) -> None:
    def exact() -> Any:
        with mock.patch.object(outcome_result, "outcome_reading", plain.outcome_reading):
            converted = outcome_result.convert(result)
        if converted is None or converted.result is None:
            return converted
        return d31_calls.sdk_call_result(version, converted.result)

    def fast() -> Any:
        converted = outcome_result.convert(result)
        if converted is None or converted.result is None:
            return converted
        return d31_calls.call_result(version, converted.result)

    assert _observe(fast) == _observe(exact), (version, result)


def test_the_recorded_example_results_take_the_fast_path() -> None:
    """The example server's results (its `--jp` mode) are plain, so the benchmark measures
    the fast path."""
    texts = [
        '{"type": "success", "content": "Hello, Zoë 🌱!"}',
        (
            '{"type": "error", "message": "service db is unreachable", '
            '"trace": ["connect: connection refused", "retry later"], "transient": true}'
        ),
    ]
    for text in texts:
        converted = outcome_result.convert({"content": [{"type": "text", "text": text}]})
        assert converted is not None and converted.result is not None
        for version in VERSIONS:
            answer = plain_result.call_result(_layout(version), converted.result)
            assert answer is not None
            assert orjson.dumps(answer) == orjson.dumps(
                d31_calls.sdk_call_result(version, converted.result)
            )
