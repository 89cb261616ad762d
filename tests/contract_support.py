"""Hypothesis strategies for contract documents, shared by the contract/convert/schemas tests.

Every strategy draws a *valid* JSON document (plain dicts and lists, as
`json.loads` would give); `mutated` turns one into a near-valid one.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from hypothesis import strategies as st

from jp_migrate.convert.encoding import decode_payload

# Unicode text, including the empty string (hypothesis excludes lone surrogates by default).
texts = st.text(max_size=40)
short = st.text(max_size=8)

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(short, inner, max_size=3),
    max_leaves=8,
)


def extras(known: set[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Unknown keys (never one of the `known` field names) with any JSON values."""
    return st.dictionaries(short.filter(lambda k: k not in known), json_values, max_size=2)


def _with_optional(required: dict[str, Any], optional: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """`required` as given, each `optional` key present or missing."""
    picks = {key: st.none() | strategy.map(lambda v: (v,)) for key, strategy in optional.items()}

    def build(drawn: dict[str, Any]) -> dict[str, Any]:
        out = dict(required)
        out.update({k: v[0] for k, v in drawn.items() if v is not None})
        return out

    return st.fixed_dictionaries(picks).map(build)


# --- legacy Outcome (SPEC §1) ---------------------------------------------------------------

answer_types = st.one_of(
    st.sampled_from(["Boolean", "Text"]),
    st.sampled_from([{"Boolean": None}, {"Text": None}]),
    st.builds(
        lambda options, more: {"Select": {"options": options, **more}},
        st.lists(texts, max_size=4),
        extras({"options"}),
    ),
)


@st.composite
def legacy_questions(draw: st.DrawFn) -> dict[str, Any]:
    question: dict[str, Any] = {"id": draw(texts), "text": draw(texts), "answer_type": draw(answer_types)}
    question = draw(_with_optional(question, {"pre_amble": st.none() | texts, "default": json_values}))
    question.update(draw(extras({"id", "text", "answer_type", "pre_amble", "default"})))
    return question


def _tagged(kind: str, fields: st.SearchStrategy[dict[str, Any]], known: set[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(lambda f, more: {"type": kind, **f, **more}, fields, extras(known | {"type"}))


outcome_docs = st.one_of(
    _tagged("success", st.fixed_dictionaries({"content": texts}), {"content"}),
    _tagged(
        "error",
        st.fixed_dictionaries({"message": texts, "trace": st.lists(texts, max_size=3), "transient": st.booleans()}),
        {"message", "trace", "transient"},
    ),
    _tagged("needs_input", st.fixed_dictionaries({"question": legacy_questions()}), {"question"}),
)

# --- RFD 058 blocks and envelope (SPEC §2) -------------------------------------------------

mime_types = st.none() | st.sampled_from(["text/x-python", "application/json", "text/plain", "x-unknown/thing"])
blob_strings = st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii"))

annotations = _with_optional(
    {},
    {
        "audience": st.none() | st.lists(st.sampled_from(["user", "assistant"]), max_size=2),
        "priority": st.none() | st.floats(0, 1) | st.integers(0, 1),
        "lastModified": st.none() | texts,
    },
)


@st.composite
def resources(draw: st.DrawFn) -> dict[str, Any]:
    payload = draw(st.sampled_from(["text", "blob"]))
    resource: dict[str, Any] = {"uri": draw(texts), payload: draw(texts if payload == "text" else blob_strings)}
    optional = {
        "mimeType": mime_types,
        "annotations": st.none() | annotations,
        "name": st.none() | texts,
        "title": st.none() | texts,
        "description": st.none() | texts,
        "formatted": st.none() | texts,
    }
    return draw(_with_optional(resource, optional))


text_blocks = st.builds(lambda t: {"type": "text", "text": t}, texts)
resource_blocks = st.builds(
    lambda r, f: {"type": "resource", "resource": r, **f},
    resources(),
    _with_optional({}, {"formatted": st.none() | texts}),
)
question_blocks = st.builds(
    lambda q: {"type": "question", "question": q},
    _with_optional(
        {},
        {"default": json_values},
    ).flatmap(
        lambda d: st.builds(
            lambda i, t, s: {"id": i, "text": t, "schema": s, **d},
            texts,
            texts,
            st.sampled_from([{"type": "boolean"}, {"type": "string"}, {"type": "string", "enum": ["a"]}, {}]),
        )
    ),
)
media_blocks = st.builds(
    lambda kind, data, mime: {"type": kind, "data": data, "mimeType": mime},
    st.sampled_from(["image", "audio"]),
    blob_strings,
    st.sampled_from(["image/png", "audio/wav"]),
)
block_docs = st.one_of(text_blocks, resource_blocks, question_blocks, media_blocks)

error_meta = _with_optional({}, {"transient": st.booleans(), "trace": st.lists(texts, max_size=2)})
envelope_meta = _with_optional(
    {},
    {
        "computer.jp/error": st.none() | error_meta,
        "computer.jp/status": st.none() | st.sampled_from(["running", "waiting", "stopped"]),
    },
)
envelope_docs = st.builds(
    lambda content, rest: {"content": content, **rest},
    st.lists(block_docs, max_size=3),
    _with_optional({}, {"isError": st.booleans(), "_meta": st.none() | envelope_meta}),
)

# --- stored events (SPEC §3) ----------------------------------------------------------------

timestamps = st.sampled_from(["2026-01-01 22:38:20", "2025-10-02T08:00:00.123Z", ""]) | texts
metadata = st.dictionaries(short, json_values, max_size=3)
_EVENT_KEYS = {"timestamp", "type", "id", "content", "is_error", "metadata"}


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def is_plain(text: str) -> bool:
    """A string a plain store can hold: it does not itself read as base64 (SPEC §3 detection)."""
    return decode_payload(text)[1] == "plain"


# A legacy stored payload: standard base64 of any text, or plain text that is not base64.
stored_payloads = st.one_of(texts.map(b64), texts.filter(is_plain))


@st.composite
def legacy_events(draw: st.DrawFn, payloads: st.SearchStrategy[str] = stored_payloads) -> dict[str, Any]:
    """A legacy `tool_call_response`, keys in JP's order, unknown keys anywhere after `type`."""
    event: dict[str, Any] = {}
    if draw(st.booleans()):
        event["timestamp"] = draw(st.none() | timestamps)
    event["type"] = "tool_call_response"
    event["id"] = draw(texts)
    event["content"] = draw(payloads)
    event["is_error"] = draw(st.booleans())
    if draw(st.booleans()):
        event["metadata"] = draw(st.none() | metadata)
    event.update(draw(extras(_EVENT_KEYS)))
    return event


@st.composite
def migrated_events(draw: st.DrawFn) -> dict[str, Any]:
    event = draw(legacy_events())
    event["content"] = draw(st.lists(block_docs, max_size=3))
    return event


# --- normalized outcome (SPEC §5) and report -----------------------------------------------

normalized_questions = st.builds(
    lambda i, t, s, d: {"id": i, "text": t, "schema": s, **d},
    texts,
    texts,
    st.sampled_from([{"type": "boolean"}, {"type": "string"}]),
    _with_optional({}, {"default": json_values}),
)
normalized_docs = st.fixed_dictionaries(
    {
        "protocol": st.sampled_from(["outcome", "blocks", "raw", "mcp", "mcp-outcome", "mcp-input-required"]),
        "status": st.sampled_from(["completed", "needs_input", "cancelled"]),
        "is_error": st.booleans(),
        "transient": st.booleans(),
        "trace": st.lists(texts, max_size=2),
        "content": st.lists(st.one_of(text_blocks, resource_blocks), max_size=2),
        "questions": st.lists(normalized_questions, max_size=2),
        "text": texts,
        "exit_code": st.none() | st.integers(-255, 255),
        "stderr": texts,
    }
)

_counts = st.integers(0, 50)
store_files = _with_optional(
    {"path": "a/events.json", "conversation": "c1", "status": "migrated"},
    {
        "message": texts,
        "events_total": _counts,
        "repairs": st.lists(
            st.fixed_dictionaries(
                {"event_index": _counts, "event_id": texts, "field": texts, "kind": st.just("urlsafe-base64")}
            ),
            max_size=2,
        ),
        "rules": st.lists(texts, max_size=2),
        "sha256_before": st.none() | texts,
        "diff": st.none() | texts,
    },
)
tool_files = _with_optional(
    {"path": "tools/t.py", "status": "unchanged"},
    {
        "sites": st.lists(
            st.fixed_dictionaries(
                {
                    "line": _counts,
                    "column": _counts,
                    "rule": texts,
                    "action": st.sampled_from(["rewritten", "unhandled"]),
                }
            ),
            max_size=2,
        )
    },
)
verify_cases = _with_optional(
    {"index": 0, "verdict": "match"},
    {"differences": st.lists(texts, max_size=2), "inputs": metadata, "control": st.none() | metadata},
)
report_docs = _with_optional(
    {"command": "conversations"},
    {
        "schema_version": st.just("jp-migrate.report.v1"),
        "dry_run": st.booleans(),
        "exit_code": st.integers(0, 2),
        "totals": _with_optional({}, {"files": _counts, "changed": _counts, "mismatches": _counts}),
        "store": st.none() | st.lists(store_files, max_size=2),
        "tools": st.none() | st.lists(tool_files, max_size=2),
        "verify": st.none() | st.lists(verify_cases, max_size=2),
        "timings": st.none() | st.dictionaries(short, st.floats(0, 100) | st.integers(0, 100), max_size=2),
    },
)

# --- near-valid documents -------------------------------------------------------------------

# Values that are wrong somewhere and right elsewhere: each type JSON has, and the tricky ones.
ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, 1.0, 1.5, -3, "", "x", "Boolean", "Text", "stopped", "text",
    [], ["x"], [1], {}, {"Select": {"options": ["a"]}}, {"Select": {}}, {"Boolean": None},
    {"Boolean": None, "Text": None}, {"type": "text", "text": "t"}, {"uri": "u", "text": "t", "blob": "YQ=="},
    {"uri": "u"},
]
# Keys that mean something somewhere: a field name, an alias's Python name, a variant tag.
ODD_KEYS: list[str] = [
    "type", "content", "text", "blob", "uri", "message", "trace", "transient", "question", "answer_type",
    "pre_amble", "default", "Select", "Boolean", "options", "schema", "schema_", "meta", "_meta",
    "isError", "is_error", "error", "status", "computer.jp/error", "computer.jp/status", "formatted",
    "exit_code", "mimeType", "id", "resource", "extra",
]


def _odd(draw: st.DrawFn) -> Any:
    """A fresh copy of an odd value (a shared one could end up inside itself)."""
    return json.loads(json.dumps(draw(st.sampled_from(ODD_VALUES))))


def _containers(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if isinstance(doc, dict | list) else []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        found += _containers(value, (*path, key))
    return found


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        doc = doc[key]
    return doc


@st.composite
def mutated(draw: st.DrawFn, valid: st.SearchStrategy[Any], max_mutations: int = 2) -> Any:
    """A valid document with 1..max_mutations random edits (drop, retype, add, or null a key)."""
    doc = json.loads(json.dumps(draw(valid)))  # a private deep copy
    for _ in range(draw(st.integers(1, max_mutations))):
        container = _at(doc, draw(st.sampled_from(_containers(doc))))
        op = draw(st.sampled_from(["drop", "retype", "add", "null"]))
        if isinstance(container, list):
            if container and op == "drop":
                container.pop(draw(st.integers(0, len(container) - 1)))
            elif container:
                container[draw(st.integers(0, len(container) - 1))] = _odd(draw)
            else:
                container.append(_odd(draw))
            continue
        keys = sorted(container)
        if op == "drop" and keys:
            del container[draw(st.sampled_from(keys))]
        elif op == "retype" and keys:
            container[draw(st.sampled_from(keys))] = _odd(draw)
        elif op == "null" and keys:
            container[draw(st.sampled_from(keys))] = None
        else:
            container[draw(st.sampled_from(ODD_KEYS))] = _odd(draw)
    return doc
