"""Source of the shipped JSON Schemas: fragments composed into one self-contained file each."""

from __future__ import annotations

from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE = "urn:jp-migrate:schema:"

S: dict[str, Any] = {"type": "string"}
STR_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
STRINGS: dict[str, Any] = {"type": "array", "items": S}
ANY: dict[str, Any] = {}


def _obj(required: list[str], props: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": props, **extra}


OUTCOME_DEFS: dict[str, Any] = {
    "success": _obj(["type", "content"], {"type": {"const": "success"}, "content": S}),
    "error": _obj(
        ["type", "message", "trace", "transient"],
        {
            "type": {"const": "error"},
            "message": S,
            "trace": STRINGS,
            "transient": {"type": "boolean"},
        },
    ),
    "needs_input": _obj(
        ["type", "question"],
        {"type": {"const": "needs_input"}, "question": {"$ref": "#/$defs/question"}},
    ),
    "question": _obj(
        ["id", "text", "answer_type"],
        {
            "id": S,
            "text": S,
            "answer_type": {"$ref": "#/$defs/answer_type"},
            "pre_amble": STR_OR_NULL,
            "default": ANY,
        },
    ),
    "answer_type": {
        "description": 'Externally tagged: "Boolean", "Text" or {"Select": {"options": [...]}}',
        "oneOf": [
            {"enum": ["Boolean", "Text"]},
            _obj(
                ["Select"],
                {"Select": _obj(["options"], {"options": STRINGS})},
                additionalProperties=False,
            ),
            {
                "type": "object",
                "minProperties": 1,
                "maxProperties": 1,
                "properties": {"Boolean": {"type": "null"}, "Text": {"type": "null"}},
                "additionalProperties": False,
            },
        ],
    },
}

BLOCK_DEFS: dict[str, Any] = {
    "block": {
        "oneOf": [
            {"$ref": "#/$defs/text_block"},
            {"$ref": "#/$defs/resource_block"},
            {"$ref": "#/$defs/question_block"},
            {"$ref": "#/$defs/image_block"},
            {"$ref": "#/$defs/audio_block"},
        ]
    },
    "text_block": _obj(["type", "text"], {"type": {"const": "text"}, "text": S}),
    "resource_block": _obj(
        ["type", "resource"],
        {
            "type": {"const": "resource"},
            "resource": {"$ref": "#/$defs/resource"},
            "formatted": STR_OR_NULL,
        },
    ),
    "resource": {
        **_obj(
            ["uri"],
            {
                "uri": S,
                "mimeType": STR_OR_NULL,
                "text": STR_OR_NULL,
                "blob": STR_OR_NULL,
                "annotations": {"anyOf": [{"$ref": "#/$defs/annotations"}, {"type": "null"}]},
                "name": STR_OR_NULL,
                "title": STR_OR_NULL,
                "description": STR_OR_NULL,
                "formatted": STR_OR_NULL,
            },
        ),
        "description": "Exactly one of `text` or `blob` is a string.",
        "oneOf": [
            {"required": ["text"], "properties": {"text": S}},
            {"required": ["blob"], "properties": {"blob": S}},
        ],
    },
    "annotations": {
        "type": "object",
        "properties": {
            "audience": {
                "anyOf": [
                    {"type": "array", "items": {"enum": ["user", "assistant"]}},
                    {"type": "null"},
                ]
            },
            "priority": {"type": ["number", "null"]},
            "lastModified": STR_OR_NULL,
        },
    },
    "question_block": _obj(
        ["type", "question"],
        {"type": {"const": "question"}, "question": {"$ref": "#/$defs/input_request"}},
    ),
    "input_request": _obj(
        ["id", "text", "schema"], {"id": S, "text": S, "schema": {"type": "object"}, "default": ANY}
    ),
    "image_block": _obj(
        ["type", "data", "mimeType"], {"type": {"const": "image"}, "data": S, "mimeType": S}
    ),
    "audio_block": _obj(
        ["type", "data", "mimeType"], {"type": {"const": "audio"}, "data": S, "mimeType": S}
    ),
}

ENVELOPE_DEFS: dict[str, Any] = {
    "meta": {
        "type": "object",
        "properties": {
            "computer.jp/error": {
                "anyOf": [
                    {
                        "type": "object",
                        "properties": {"transient": {"type": "boolean"}, "trace": STRINGS},
                    },
                    {"type": "null"},
                ]
            },
            "computer.jp/status": {"enum": ["running", "waiting", "stopped", None]},
        },
    },
}


def _doc(name: str, title: str, root: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": DIALECT, "$id": f"{BASE}{name}", "title": title, **root, "$defs": defs}


def _response(content: dict[str, Any]) -> dict[str, Any]:
    return _obj(
        ["type", "id", "content", "is_error"],
        {
            "timestamp": STR_OR_NULL,
            "type": {"const": "tool_call_response"},
            "id": S,
            "content": content,
            "is_error": {"type": "boolean"},
            "metadata": {"type": ["object", "null"]},
        },
    )


def protocol_schemas() -> dict[str, dict[str, Any]]:
    blocks = {"type": "array", "items": {"$ref": "#/$defs/block"}}
    question = _obj(
        ["id", "text", "schema"],
        {"id": S, "text": S, "schema": {"type": "object"}, "default": ANY},
        additionalProperties=False,
    )
    return {
        "outcome": _doc(
            "outcome",
            "Legacy JP tool Outcome (jp_tool::Outcome)",
            {
                "oneOf": [
                    {"$ref": "#/$defs/success"},
                    {"$ref": "#/$defs/error"},
                    {"$ref": "#/$defs/needs_input"},
                ]
            },
            OUTCOME_DEFS,
        ),
        "content-block": _doc(
            "content-block", "RFD 058 content block", {"$ref": "#/$defs/block"}, BLOCK_DEFS
        ),
        "envelope": _doc(
            "envelope",
            "RFD 058 tool response envelope",
            _obj(
                ["content"],
                {
                    "content": blocks,
                    "isError": {"type": "boolean"},
                    "_meta": {"anyOf": [{"$ref": "#/$defs/meta"}, {"type": "null"}]},
                },
            ),
            {**BLOCK_DEFS, **ENVELOPE_DEFS},
        ),
        "tool-call-response-legacy": _doc(
            "tool-call-response-legacy",
            "Stored tool_call_response event, legacy shape (content is a string)",
            _response(S),
            {},
        ),
        "tool-call-response-migrated": _doc(
            "tool-call-response-migrated",
            "Stored tool_call_response event, migrated shape (content is RFD 058 blocks)",
            _response(blocks),
            BLOCK_DEFS,
        ),
        "normalized-outcome": _doc(
            "normalized-outcome",
            "The normalized outcome of one tool run (jp-migrate SPEC section 5)",
            _obj(
                [
                    "protocol",
                    "status",
                    "is_error",
                    "transient",
                    "trace",
                    "content",
                    "questions",
                    "text",
                    "exit_code",
                    "stderr",
                ],
                {
                    "protocol": {
                        "enum": [
                            "outcome",
                            "blocks",
                            "raw",
                            "mcp",
                            "mcp-outcome",
                            "mcp-input-required",
                        ]
                    },
                    "status": {"enum": ["completed", "needs_input", "cancelled"]},
                    "is_error": {"type": "boolean"},
                    "transient": {"type": "boolean"},
                    "trace": STRINGS,
                    "content": blocks,
                    "questions": {"type": "array", "items": question},
                    "text": S,
                    "exit_code": {"type": ["integer", "null"]},
                    "stderr": S,
                },
                additionalProperties=False,
            ),
            BLOCK_DEFS,
        ),
    }


def report_schema() -> dict[str, Any]:
    from jp_migrate.contract.report import Report

    generated = Report.model_json_schema(by_alias=True, mode="serialization")
    defs = generated.pop("$defs", {})
    return _doc("report", "jp-migrate report", generated, defs)


def all_schemas() -> dict[str, dict[str, Any]]:
    return {**protocol_schemas(), "report": report_schema()}
