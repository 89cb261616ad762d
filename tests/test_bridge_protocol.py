"""Which host reads a run, and the RFD D31 guard for MCP results (SPEC §1, §2, §5)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.forms import Forms
from jp_migrate.bridge.mcp_client import jp_meta
from jp_migrate.bridge.protocol import interpret_local, interpret_mcp, joined_text
from jp_migrate.bridge.template import tool_context
from jp_migrate.convert.host import ToolRun

SUCCESS = json.dumps({"type": "success", "content": "unwrapped"})
ENVELOPE = json.dumps({"content": [{"type": "text", "text": "hi"}, {"type": "bogus"}]})


def run(stdout: str, code: int = 0) -> ToolRun:
    return ToolRun(name="t", stdout=stdout, stderr="err", exit_code=code)


@pytest.mark.parametrize(
    ("stdout", "protocol", "text"),
    [(SUCCESS, "outcome", "unwrapped"), (ENVELOPE, "blocks", "hi"), ("plain", "raw", "plain")],
)
def test_auto_detects_outcome_envelope_raw(stdout: str, protocol: str, text: str) -> None:
    normalized = interpret_local(run(stdout), "auto")
    assert (normalized.outcome.protocol, normalized.outcome.text) == (protocol, text)


def test_envelope_with_a_malformed_block_warns_and_never_falls_back_to_raw() -> None:
    normalized = interpret_local(run(ENVELOPE), "auto")
    assert normalized.outcome.protocol == "blocks" and len(normalized.outcome.content) == 1
    assert normalized.warnings and "content[1]" in normalized.warnings[0]


@pytest.mark.parametrize(
    ("mode", "protocol"), [("legacy", "outcome"), ("blocks", "raw"), ("raw", "raw")]
)
def test_protocol_can_be_forced(mode: str, protocol: str) -> None:
    assert interpret_local(run(SUCCESS), mode).outcome.protocol == protocol  # type: ignore[arg-type]


def test_raw_failure_is_the_legacy_failure_envelope() -> None:
    outcome = interpret_local(run("out", 2), "auto").outcome
    assert outcome.is_error and outcome.exit_code == 2
    assert json.loads(outcome.text) == {
        "message": "Tool 't' execution failed.",
        "stderr": "err",
        "stdout": "out",
    }


# ── RFD D31's unwrap guard ────────────────────────────────────────────────────


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def test_d31_one_text_with_a_valid_outcome_is_unwrapped() -> None:
    outcome = interpret_mcp({"content": [text(SUCCESS)]}, "t", "legacy").outcome
    assert (outcome.protocol, outcome.text, outcome.is_error) == ("mcp-outcome", "unwrapped", False)


def test_d31_one_text_with_invalid_json_stays_plain() -> None:
    outcome = interpret_mcp({"content": [text('{"type": "success"')]}, "t", "legacy").outcome
    assert (outcome.protocol, outcome.text) == ("mcp", '{"type": "success"')


def test_d31_two_items_are_never_unwrapped() -> None:
    outcome = interpret_mcp({"content": [text(SUCCESS), text("more")]}, "t", "legacy").outcome
    assert outcome.protocol == "mcp" and outcome.text == f"{SUCCESS}\n\nmore"


def test_d31_is_error_wins_over_outcome_success() -> None:
    normalized = interpret_mcp({"content": [text(SUCCESS)], "isError": True}, "t", "legacy")
    assert normalized.outcome.protocol == "mcp" and normalized.outcome.is_error
    assert normalized.outcome.text == SUCCESS
    assert any("isError" in w for w in normalized.warnings)


def test_d31_transient_outcome_error_keeps_its_semantics() -> None:
    error = json.dumps({"type": "error", "message": "down", "trace": ["x"], "transient": True})
    outcome = interpret_mcp({"content": [text(error)]}, "t", "auto").outcome
    assert (outcome.protocol, outcome.transient, outcome.trace) == ("mcp-outcome", True, ["x"])
    assert outcome.text == '{"message":"down","trace":["x"]}'


RESULT = {
    "content": [
        text("intro"),
        {
            "type": "resource",
            "resource": {"uri": "f:///a.py", "mimeType": "text/x-python", "text": "x = 1\n"},
        },
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
        {"type": "resource_link", "uri": "f:///b", "name": "b"},
    ],
    "isError": False,
    "_meta": {"computer.jp/error": {"transient": True, "trace": ["t"]}},
}


def test_legacy_mcp_path_joins_text_and_resources_and_drops_the_rest() -> None:
    assert joined_text(RESULT["content"]) == "intro\n\nx = 1\n"
    outcome = interpret_mcp(RESULT, "t", "legacy").outcome
    assert outcome.text == "intro\n\nx = 1\n"


def test_native_blocks_keep_images_render_resources_and_keep_links_as_references() -> None:
    """A resource_link is a standard MCP item: kept in its place (it had been dropped, with
    a warning calling it invalid)."""
    normalized = interpret_mcp(RESULT, "t", "blocks")
    outcome = normalized.outcome
    assert [b.type for b in outcome.content] == ["text", "resource", "image", "text"]
    assert outcome.text == (
        "intro\n\n```python\nx = 1\n```\n\n[resource link f:///b (b, unknown type)]"
    )
    assert normalized.warnings == []


def test_a_link_read_through_resources_read_is_the_resource_in_its_place() -> None:
    read = [{"uri": "f:///b", "mimeType": "text/markdown", "text": "# B\n"}]
    outcome = interpret_mcp(RESULT, "t", "blocks", links={3: read}).outcome
    assert [b.type for b in outcome.content] == ["text", "resource", "image", "resource"]
    assert outcome.text.endswith("```\n\n```markdown\n# B\n```")


def test_the_legacy_host_drops_a_link_naming_why() -> None:
    normalized = interpret_mcp(RESULT, "t", "legacy")
    assert [b.type for b in normalized.outcome.content] == ["text", "resource", "image"]
    assert normalized.warnings == [
        (
            "content[3]: resource_link f:///b dropped: JP's legacy host drops resource links "
            "(RFD 058 keeps them)"
        )
    ]


@pytest.mark.parametrize("mode", ["legacy", "blocks", "raw"])
def test_structured_content_is_not_dropped_silently(mode: str) -> None:
    result = {"content": [text("{}")], "structuredContent": {"temperature": 21}}
    normalized = interpret_mcp(result, "t", mode)  # type: ignore[arg-type]
    assert normalized.outcome.text == "{}"
    assert [w for w in normalized.warnings if w.startswith("structuredContent not kept")]


def test_native_error_reads_transient_and_trace_from_meta() -> None:
    outcome = interpret_mcp({**RESULT, "isError": True}, "t", "blocks").outcome
    assert (outcome.is_error, outcome.transient, outcome.trace) == (True, True, ["t"])


def test_a_malformed_meta_key_is_dropped_alone_with_a_one_line_warning() -> None:
    meta = {"computer.jp/error": {"transient": "yes"}, "example.com/kept": 1}
    normalized = interpret_mcp({**RESULT, "isError": True, "_meta": meta}, "t", "blocks")
    assert normalized.outcome.is_error and normalized.outcome.text.startswith("intro")
    (warning,) = [w for w in normalized.warnings if "_meta" in w]
    assert "_meta.computer.jp/error.transient" in warning and "\n" not in warning
    assert "https://" not in warning


# ── the request side: _meta and input_required ────────────────────────────────


def test_meta_is_omitted_when_answers_and_options_are_empty() -> None:
    assert jp_meta(tool_context("t", {"a": 1}, {}, {}, __import__("pathlib").Path("/r"))) is None


def test_meta_carries_the_two_keys() -> None:
    ctx = tool_context("t", {"a": 1}, {"q": True}, {}, __import__("pathlib").Path("/r"))
    assert jp_meta(ctx) == {
        "computer.jp/tool": {
            "name": "t",
            "arguments": {"a": 1},
            "answers": {"q": True},
            "options": {},
        },
        "computer.jp/context": {"action": "run", "root": "/r"},
    }


def _form(message: str, properties: dict, required: list[str] | None = None) -> SimpleNamespace:
    schema = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    params = SimpleNamespace(mode="form", message=message, requested_schema=schema)
    return SimpleNamespace(method="elicitation/create", params=params)


def test_elicitation_form_properties_become_questions() -> None:
    forms = Forms.of(
        {
            "a": _form("Delete x?", {"confirm": {"type": "boolean"}}, ["confirm"]),
            "b": _form(
                "Details",
                {
                    "confirm": {"type": "string", "title": "Why", "default": "n/a"},
                    "n": {"type": "integer"},
                },
                ["confirm"],
            ),
        }
    )
    assert [(q.id, q.text, q.schema_, q.default) for q in forms.questions] == [
        ("confirm", "Delete x?", {"type": "boolean"}, None),
        ("b.confirm", "Details Why", {"type": "string", "title": "Why"}, "n/a"),
        ("n", "Details n", {"type": "integer"}, None),  # no label: the field's name
    ]
    keys = {qid: (form.key, prop) for form in forms.forms for qid, prop in form.fields.items()}
    assert keys == {"confirm": ("a", "confirm"), "b.confirm": ("b", "confirm"), "n": ("b", "n")}
    assert forms.optional == {"n"}  # not in its form's `required`


def test_input_requests_the_bridge_cannot_answer_are_an_error() -> None:
    with pytest.raises(BridgeError, match="sampling/createMessage.*: no model in this runtime"):
        Forms.of({"s": SimpleNamespace(method="sampling/createMessage", params=None)})
    with pytest.raises(BridgeError, match="'roots/list' .* which the bridge cannot provide"):
        Forms.of({"r": SimpleNamespace(method="roots/list", params=None)})


# ── every normalized outcome the bridge builds fits the shipped schema ────────


def test_bridge_outcomes_validate_against_the_shipped_schema() -> None:
    from jp_migrate.bridge.protocol import input_required_outcome
    from jp_migrate.contract.normalized import NormalizedQuestion
    from jp_migrate.contract.parse import dump
    from jp_migrate.contract.schemas import validator

    check = validator("normalized-outcome")
    question = NormalizedQuestion.model_validate(
        {"id": "q", "text": "Go?", "schema": {"type": "boolean"}}
    )
    outcomes = [
        interpret_mcp(RESULT, "t", "legacy").outcome,
        interpret_mcp(RESULT, "t", "blocks").outcome,
        interpret_mcp({"content": [text(SUCCESS)]}, "t", "auto").outcome,
        interpret_local(run(ENVELOPE), "auto").outcome,
        input_required_outcome([question]),
    ]
    for outcome in outcomes:
        check.validate(dump(outcome))
