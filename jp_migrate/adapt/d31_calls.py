"""The messages `adapt --mcp` builds or reads itself, each through the official SDK's types.

The relay passes every other message on as its raw line; these are the ones it
changes: a D31 `tools/call` result made native, a question asked as an
elicitation (an `input_required` result, or an `elicitation/create` request),
the client's answer to it, and the re-call carrying the answers. Each is shaped
by the SDK's models for the protocol version the client speaks (`mcp_types.methods`),
so what the adapter writes is what an SDK server would have written (a plain result
by the layout the SDK gave for that version once, `plain_result`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, partial
from typing import Any

import mcp_types as types
from mcp_types import methods
from mcp_types.version import (
    KNOWN_PROTOCOL_VERSIONS,
    LATEST_HANDSHAKE_VERSION,
    LATEST_MODERN_VERSION,
    is_version_at_least,
)
from pydantic import TypeAdapter, ValidationError

from jp_migrate.adapt import plain_result
from jp_migrate.adapt.mcp import MAX_QUESTIONS, StateError, d31_meta, decode_state
from jp_migrate.adapt.outcome_result import Question

INPUT_REQUIRED_VERSION = "2026-07-28"  # from here on, elicitation rides an input_required result


def asks_in_result(version: str | None) -> bool:
    """Whether a question goes back inside an `input_required` result (else: a request)."""
    return version is not None and is_version_at_least(version, INPUT_REQUIRED_VERSION)


def call_result(version: str | None, data: Mapping[str, Any]) -> dict[str, Any]:
    """A `tools/call` result as the client's protocol version has it (validated; the fields
    the version lacks, such as a 2026-07-28 `resultType` for an older one, are dropped).

    A plain result (text blocks, a bool `isError`, a JSON `_meta`) takes the version's
    layout as the SDK gave it once (`plain_result`); any other, the SDK's models."""
    if version is None or version in KNOWN_PROTOCOL_VERSIONS:
        shape = _layout(version)
        plain = None if shape is None else plain_result.call_result(shape, data)
        if plain is not None:
            return plain
    return sdk_call_result(version, data)


def sdk_call_result(version: str | None, data: Mapping[str, Any]) -> dict[str, Any]:
    """`call_result` through the SDK's models, whatever `data` holds."""
    result = _wire(types.CallToolResult.model_validate(data, by_alias=True))
    if version in KNOWN_PROTOCOL_VERSIONS:
        return methods.serialize_server_result("tools/call", version, result)
    return result


def input_required(question: Question, state: str) -> dict[str, Any]:
    """The question as a 2026-07-28 `input_required` result; `state` (`mcp.encode_state`)
    carries the answers so far."""
    result = types.InputRequiredResult(
        input_requests={question.id: types.ElicitRequest(params=elicit_params(question))},
        request_state=state,
    )
    return methods.serialize_server_result("tools/call", INPUT_REQUIRED_VERSION, _wire(result))


def elicit_params(question: Question) -> types.ElicitRequestFormParams:
    return types.ElicitRequestFormParams(message=question.text, requested_schema=question.form())


def elicit_request(question: Question) -> dict[str, Any]:
    """`elicitation/create`'s params for a client that takes server requests mid-call."""
    return _wire(elicit_params(question))


def elicit_answer(version: str | None, data: Mapping[str, Any]) -> types.ElicitResult:
    """The client's answer to our `elicitation/create` (raises pydantic's ValidationError)."""
    if version in KNOWN_PROTOCOL_VERSIONS and ("elicitation/create", version) in (
        methods.CLIENT_RESULTS
    ):
        methods.validate_client_result("elicitation/create", version, data)
    return types.ElicitResult.model_validate(data, by_alias=True)


def initialize_params(discover: Mapping[str, Any]) -> dict[str, Any]:
    """The `initialize` a 2026-07-28 client's `server/discover` stands for, for a server that
    only knows the handshake: its capabilities and client info, from the request's `_meta`."""
    meta = discover.get("_meta") if isinstance(discover.get("_meta"), dict) else {}
    params = types.InitializeRequestParams(
        protocol_version=LATEST_HANDSHAKE_VERSION,
        capabilities=types.ClientCapabilities.model_validate(
            meta.get(types.CLIENT_CAPABILITIES_META_KEY) or {}
        ),
        client_info=types.Implementation.model_validate(
            meta.get(types.CLIENT_INFO_META_KEY) or {"name": "jp-migrate-adapt", "version": ""}
        ),
    )
    return _wire(params)


def discover_result(initialized: Mapping[str, Any]) -> dict[str, Any]:
    """The server's `initialize` result as the `server/discover` result of a 2026-07-28
    server (the adapter speaks that version for it)."""
    result = types.DiscoverResult(
        supported_versions=[LATEST_MODERN_VERSION],
        capabilities=types.ServerCapabilities.model_validate(initialized.get("capabilities") or {}),
        instructions=initialized.get("instructions"),
        _meta={types.SERVER_INFO_META_KEY: initialized.get("serverInfo")},
    )
    return methods.serialize_server_result("server/discover", LATEST_MODERN_VERSION, _wire(result))


def modern_result(method: str, result: Mapping[str, Any]) -> dict[str, Any] | None:
    """A handshake-era result as its 2026-07-28 form (the fields that version requires, with
    the SDK's defaults); None when the SDK knows no such result or it does not validate."""
    row = methods.MONOLITH_RESULTS.get(method)
    if row is None or (method, LATEST_MODERN_VERSION) not in methods.SERVER_RESULTS:
        return None
    adapter = _adapter(row)
    try:
        full = adapter.dump_python(
            adapter.validate_python(result), mode="json", by_alias=True, exclude_none=True
        )
        return methods.serialize_server_result(method, LATEST_MODERN_VERSION, full)
    except ValidationError:
        return None


class Resumed:
    """A client's re-call carrying our `request_state`: the answers it now holds (those before,
    and the one to the question asked), or the question it declined; how many questions the
    call has asked. StateError for a state this session did not sign for this call, or no
    answer to the question asked; pydantic's ValidationError for responses of the wrong shape.
    Responses to questions not asked are left out (`ignored` names them)."""

    def __init__(
        self, params: Mapping[str, Any], secret: bytes, name: str, arguments: Mapping[str, Any]
    ) -> None:
        state = decode_state(secret, params["requestState"], name, arguments)
        self.answers: dict[str, Any] = dict(state.answers)
        self.rounds = state.rounds
        typed = types.CallToolRequestParams.model_validate(params, by_alias=True)
        responses = typed.input_responses or {}
        if not isinstance(responses.get(state.asked), types.ElicitResult):
            raise StateError(f"params.inputResponses: no answer to the question {state.asked!r}")
        self.ignored = sorted(key for key in responses if key != state.asked)
        self.declined = take_answers({state.asked: responses[state.asked]}, self.answers)


def recall_params(
    name: str,
    arguments: Mapping[str, Any],
    meta: Mapping[str, Any] | None,
    answers: Mapping[str, Any],
) -> dict[str, Any]:
    """The server's re-call: the client's call, answers under `_meta."computer.jp/tool"`."""
    params: dict[str, Any] = {"name": name, "arguments": dict(arguments)}
    merged = d31_meta(meta, name, arguments, answers)
    if merged is not None:
        params["_meta"] = merged
    return _wire(types.CallToolRequestParams.model_validate(params, by_alias=True))


def take_answers(responses: Mapping[str, Any], answers: dict[str, Any]) -> str | None:
    """Each accepted form's field into `answers`; the id of a question declined (or
    dismissed), else None."""
    for key, response in responses.items():
        if not isinstance(response, types.ElicitResult):
            continue
        content = response.content or {}
        if response.action != "accept" or key not in content:
            return key
        answers[key] = content[key]
    return None


def declined(name: str, question: str) -> dict[str, Any]:
    """A question the user would not answer: the call ends, as an error the model can read
    (wire JSON, for `call_result`)."""
    return _error_result(f"Tool '{name}' needed an answer to {question!r}, which was declined.")


def unread_result(name: str, why: str) -> dict[str, Any]:
    """A call whose answer the adapter could not read (too large, nested too deeply)."""
    return _error_result(f"Tool '{name}' failed: {why}")


def too_many_questions(name: str) -> dict[str, Any]:
    return _error_result(f"Tool '{name}' asked {MAX_QUESTIONS} questions in a row")


def _error_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


@cache
def _layout(version: str | None) -> plain_result.Layout | None:
    # Called for None and the SDK's known versions only: a handful of entries.
    return plain_result.layout(partial(sdk_call_result, version))


@cache
def _adapter(row: Any) -> TypeAdapter[Any]:
    return TypeAdapter(row)  # building one takes milliseconds: once per kind of result


def _wire(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped
