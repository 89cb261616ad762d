"""Bad input to any model entry point is exactly one `ContractError` naming the field.

And through the CLI: one line on stderr, exit 2, never a traceback, the other
documents still converted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import EXAMPLES, run_cli
from contract_support import (
    block_docs,
    envelope_docs,
    json_values,
    legacy_events,
    mutated,
    normalized_docs,
    outcome_docs,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jp_migrate.contract.parse import (
    load_json,
    parse_block,
    parse_envelope,
    parse_legacy_response,
    parse_migrated_response,
    parse_normalized,
    parse_outcome,
)
from jp_migrate.errors import ContractError

Q = '"question": {"id": "q", "text": "t", '
NORMALIZED = (
    '{"protocol": "raw", "status": "completed", "is_error": false, "transient": false, "trace": [],'
    ' "content": [], "questions": [], "text": "", "exit_code": %s, "stderr": ""}'
)

# (entry point, input, the field the message must name ("" = the whole document), words of the reason)
ROWS: list[tuple[Callable[..., Any], Any, str, str]] = [
    (load_json, "{not json", "", "invalid JSON"),
    (load_json, b"\xff\xfe{}", "", "not valid UTF-8"),
    (load_json, '{"a": NaN}', "", "NaN is not a JSON value"),
    (load_json, "[1e999]", "", "out of range"),
    (load_json, "[1" + "0" * 400 + "]", "", "out of range"),  # beyond a double, as serde_json
    (load_json, "[1" + "0" * 5000 + "]", "", "out of range"),  # beyond Python's int() limit
    (load_json, '"\\udc00"', "", "lone UTF-16 surrogate"),
    (load_json, "[" * 100_000, "", "invalid JSON"),
    (parse_outcome, "", "", "invalid JSON"),
    (parse_outcome, b"\x80", "", "not valid UTF-8"),
    (parse_outcome, "[1, 2]", "", "expected a JSON object"),
    (parse_outcome, '"success"', "", "expected a JSON object"),
    (parse_outcome, 42, "", "expected a JSON object"),
    (parse_outcome, "{}", "type", "type must be one of success, error, needs_input"),
    (parse_outcome, '{"type": "done"}', "type", "type must be one of"),
    (parse_outcome, '{"type": "success", "content": 1}', "content", "valid string"),
    (parse_outcome, '{"type": "error", "message": "m", "trace": [1], "transient": true}', "trace[0]", "valid string"),
    (parse_outcome, '{"type": "error", "message": "m", "trace": [], "transient": "yes"}', "transient", "valid boolean"),
    (parse_outcome, '{"type": "error", "message": "m", "trace": []}', "transient", "Field required"),
    (parse_outcome, '{"type": "needs_input", ' + Q + '"answer_type": {"Select": {}}}}', "question.answer_type.Select.options", "Field required"),
    (parse_outcome, '{"type": "needs_input", ' + Q + '"answer_type": {"Select": {"options": "a"}}}}', "question.answer_type.Select.options", "valid list"),
    (parse_outcome, '{"type": "needs_input", ' + Q + '"answer_type": "Number"}}', "question.answer_type", "'Boolean' or 'Text'"),
    (parse_outcome, '{"type": "needs_input", ' + Q + '"answer_type": 1}}', "question.answer_type", 'answer_type must be "Boolean"'),
    (parse_outcome, '{"type": "needs_input", ' + Q + '"answer_type": "Text", "pre_amble": 1}}', "question.pre_amble", "valid string"),
    (parse_block, '{"type": "text", "text": null}', "text", "valid string"),
    (parse_block, '{"text": "x"}', "type", "type must be one of text, resource, question, image, audio"),
    (parse_block, '{"type": "resource", "resource": {"uri": "u"}}', "resource", "exactly one of `text` or `blob`"),
    (parse_block, '{"type": "question", "question": {"id": "q", "text": "t"}}', "question.schema", "Field required"),
    (parse_block, "[]", "", "expected a JSON object"),
    (parse_envelope, '{"content": {}}', "content", "valid list"),
    (parse_envelope, '{"content": [{"type": "text"}]}', "content[0].text", "Field required"),
    (parse_envelope, '{"content": [], "isError": "true"}', "isError", "valid boolean"),
    (parse_envelope, '{"content": [], "_meta": {"computer.jp/status": "done"}}', "_meta.computer.jp/status", "'running', 'waiting' or 'stopped'"),
    (parse_envelope, '{"content": [], "_meta": {"computer.jp/error": {"trace": "x"}}}', "_meta.computer.jp/error.trace", "valid list"),
    (parse_legacy_response, '{"type": "tool_call_response", "id": "i", "content": 1, "is_error": false}', "content", "valid string"),
    (parse_legacy_response, '{"type": "tool_call_response", "id": "i", "content": ""}', "is_error", "Field required"),
    (parse_legacy_response, '{"type": "chat_request", "id": "i", "content": "", "is_error": false}', "type", "tool_call_response"),
    (parse_migrated_response, '{"type": "tool_call_response", "id": "i", "content": "x", "is_error": false}', "content", "valid list"),
    (parse_migrated_response, '{"type": "tool_call_response", "id": "i", "content": [{"type": "text"}], "is_error": false}', "content[0].text", "Field required"),
    (parse_normalized, NORMALIZED % "true", "exit_code", "valid integer"),
    (parse_normalized, NORMALIZED % '"0"', "exit_code", "valid integer"),
    (parse_normalized, NORMALIZED.replace('"raw"', '"smoke"') % "0", "protocol", "'outcome'"),
    (parse_normalized, NORMALIZED.replace('"stderr": ""', '"stderr": "", "more": 1') % "0", "more", "Extra inputs"),
]


@pytest.mark.parametrize(("entry", "data", "field", "reason"), ROWS, ids=[f"{r[0].__name__}-{i}" for i, r in enumerate(ROWS)])
def test_bad_input_is_one_contract_error_naming_the_field(entry: Callable[..., Any], data: Any, field: str, reason: str) -> None:
    with pytest.raises(ContractError) as caught:
        entry(data, source="doc.json")
    error = caught.value
    assert type(error) is ContractError
    assert (error.field, error.source) == (field, "doc.json")
    assert reason in error.reason
    assert str(error) == f"doc.json: {field + ': ' if field else ''}{error.reason}"
    assert "\n" not in str(error)


ENTRY_POINTS = [parse_outcome, parse_block, parse_envelope, parse_legacy_response, parse_migrated_response, parse_normalized]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def only_contract_errors(entry: Callable[..., Any], data: Any) -> None:
    try:
        entry(data)
    except ContractError:
        pass  # anything else propagates and fails the test


@SETTINGS
@given(st.binary(max_size=64) | st.text(max_size=64))
def test_arbitrary_bytes_and_text_never_raise_anything_else(data: bytes | str) -> None:
    only_contract_errors(load_json, data)
    for entry in ENTRY_POINTS:
        only_contract_errors(entry, data)


@SETTINGS
@given(json_values | mutated(st.one_of(outcome_docs, block_docs, envelope_docs, legacy_events(), normalized_docs), 3))
def test_arbitrary_json_never_raises_anything_else(doc: Any) -> None:
    import json

    for entry in ENTRY_POINTS:
        only_contract_errors(entry, doc)
        only_contract_errors(entry, json.dumps(doc))


# --- through the CLI ----------------------------------------------------------------------------


def test_convert_reports_each_bad_document_in_one_line_and_converts_the_rest(tmp_path: Path) -> None:
    (tmp_path / "a-good.json").write_text('{"type": "success", "content": "ok"}', "utf-8")
    (tmp_path / "b-not-json.json").write_text("{oops", "utf-8")
    (tmp_path / "c-select.json").write_text('{"type": "needs_input", ' + Q + '"answer_type": {"Select": {}}}}', "utf-8")
    (tmp_path / "d-binary.json").write_bytes(b"\xff\x00")
    (tmp_path / "e-wrong-type.json").write_text('{"type": "error", "message": 1, "trace": [], "transient": true}', "utf-8")
    done = run_cli("convert", "--compact", str(tmp_path))
    assert done.returncode == 2
    assert done.stdout == '{"content": [{"type": "text", "text": "ok"}]}\n'
    assert done.stderr.splitlines() == [
        f"error: {tmp_path}/b-not-json.json: invalid JSON: Expecting property name enclosed in double quotes at line 1 column 2",
        f"error: {tmp_path}/c-select.json: question.answer_type.Select.options: not a valid Outcome: Field required",
        f"error: {tmp_path}/d-binary.json: not valid UTF-8 (byte 0)",
        f"error: {tmp_path}/e-wrong-type.json: message: not a valid Outcome: Input should be a valid string",
    ]


@pytest.mark.parametrize(
    ("stdin", "line"),
    [
        (b"\xc3\x28", "error: <stdin>: not valid UTF-8 (byte 0)"),
        (b'{"type": "success", "content": "\\ud800"}', "error: <stdin>: invalid JSON: a string escapes a lone UTF-16 surrogate"),
        (b"[]", "error: <stdin>: not a valid Outcome: expected a JSON object"),
        (b'{"type": "success"}', "error: <stdin>: content: not a valid Outcome: Field required"),
    ],
)
def test_convert_stdin_bad_input(stdin: bytes, line: str) -> None:
    import subprocess
    import sys

    from conftest import REPO

    done = subprocess.run([sys.executable, "-m", "jp_migrate", "convert", "-"], input=stdin, capture_output=True, cwd=REPO, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.decode("utf-8").splitlines() == [line]
    assert done.stdout == b""


def test_convert_missing_file_is_one_line() -> None:
    done = run_cli("convert", "no/such/file.json")
    assert (done.returncode, done.stderr.splitlines()) == (2, ["error: no/such/file.json: cannot read: No such file or directory"])


def test_convert_examples_pretty_output_names_each_source() -> None:
    done = run_cli("convert", str(EXAMPLES / "outcomes" / "success.json"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"# {EXAMPLES / 'outcomes' / 'success.json'}"
