"""Entry points that turn untrusted input into contract models, or one ContractError."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from jp_migrate.contract._base import contract_error
from jp_migrate.contract.blocks import ContentBlock, Envelope
from jp_migrate.contract.events import LegacyToolCallResponse, MigratedToolCallResponse
from jp_migrate.contract.jsontext import load_json
from jp_migrate.contract.normalized import NormalizedOutcome
from jp_migrate.contract.outcome import Outcome
from jp_migrate.contract.plain import (
    envelope_candidate,
    outcome_reading,
    outcome_shape,
    outcome_view,
)
from jp_migrate.errors import ContractError

M = TypeVar("M", bound=BaseModel)

Document = bytes | str | Mapping[str, Any]


def _as_object(data: Document, what: str, source: str) -> Any:
    obj = load_json(data, source=source) if isinstance(data, bytes | str) else data
    return _object(obj, what, source)


def _object(obj: Any, what: str, source: str) -> Any:
    if not isinstance(obj, Mapping):
        raise ContractError(f"not a valid {what}: expected a JSON object", source=source)
    return dict(obj)


@cache
def _adapter(kind: str) -> TypeAdapter[Any]:
    return {
        "outcome": TypeAdapter(Outcome),
        "block": TypeAdapter(ContentBlock),
    }[kind]


def _validate(adapter_or_model: Any, obj: Any, what: str, source: str) -> Any:
    # JSON keys are the aliases only: `{"meta": …}` is an unknown key, not `_meta` (SPEC §2).
    try:
        if isinstance(adapter_or_model, TypeAdapter):
            return adapter_or_model.validate_python(obj, by_alias=True, by_name=False)
        return adapter_or_model.model_validate(obj, by_alias=True, by_name=False)
    except ValidationError as exc:
        raise contract_error(exc, what=what).with_source(source) from None


def parse_outcome(data: Document, *, source: str = "") -> Outcome:
    """A legacy `Outcome`, or ContractError naming the field that disqualifies it.

    JSON text is read as serde reads an `Outcome` (`plain.outcome_view`): a
    sequence `[tag, fields…]` is one too, and a repeated field is refused.
    """
    if isinstance(data, bytes | str):
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        try:
            obj = outcome_view(load_json(data, source=source), text)
        except ContractError as exc:
            raise exc.with_source(source) from None
    else:
        obj = data
    return _validate(_adapter("outcome"), _object(obj, "Outcome", source), "Outcome", source)


def try_outcome(text: str) -> Outcome | None:
    """What JP's host does: stdout that parses as an `Outcome` is one, anything else is not."""
    obj = outcome_reading(text)
    # Most stdout is certainly not an Outcome: say so without building the models.
    if outcome_shape(obj) == "none":
        return None
    try:
        return parse_outcome(obj)
    except ContractError:
        return None


def parse_block(data: Document, *, source: str = "") -> ContentBlock:
    obj = _as_object(data, "content block", source)
    return _validate(_adapter("block"), obj, "content block", source)


def parse_envelope(data: Document, *, source: str = "") -> Envelope:
    """A strictly valid RFD 058 envelope (every block well-formed)."""
    return _validate(Envelope, _as_object(data, "envelope", source), "envelope", source)


def read_envelope(text: str) -> tuple[Envelope, list[str]] | None:
    """RFD 058 parsing for a host: a JSON object with a `content` array is an envelope.

    Malformed blocks are skipped, each with a warning, never a fall-back to raw
    text. Returns None when `text` is not such an object (the raw path).
    """
    try:
        obj = load_json(text)
    except ContractError:
        return None
    if not envelope_candidate(obj):
        return None
    warnings: list[str] = []
    blocks: list[Any] = []
    for index, raw in enumerate(obj["content"]):
        try:
            blocks.append(parse_block(raw) if isinstance(raw, dict) else _not_object(index))
        except ContractError as exc:
            where = f"content[{index}].{exc.field}" if exc.field else f"content[{index}]"
            warnings.append(f"{where}: skipped malformed block: {exc.reason}")
    rest = {k: v for k, v in obj.items() if k != "content"}
    try:
        envelope = Envelope.model_validate({"content": [], **rest}, by_alias=True, by_name=False)
    except ValidationError:
        # A broken field does not make the content raw, nor an error a success: only
        # what is broken is dropped (a field, or one key of `_meta`), each with a warning.
        kept = valid_envelope_fields(rest, warnings)
        envelope = Envelope.model_validate({"content": [], **kept}, by_alias=True, by_name=False)
    envelope.content = blocks
    return envelope, warnings


def _envelope_error(fields: Mapping[str, Any]) -> ContractError | None:
    try:
        Envelope.model_validate({"content": [], **fields}, by_alias=True, by_name=False)
    except ValidationError as exc:
        return contract_error(exc, what="envelope")
    return None


def valid_envelope_fields(fields: Mapping[str, Any], warnings: list[str]) -> dict[str, Any]:
    """The envelope fields (besides `content`) that validate; a one-line warning for each
    dropped field, or dropped key of `_meta` (the others are kept)."""
    kept: dict[str, Any] = {}
    for key, value in fields.items():
        error = _envelope_error({key: value})
        if error is None:
            kept[key] = value
        elif key == "_meta" and isinstance(value, dict):
            meta = {}
            for name, item in value.items():
                bad = _envelope_error({"_meta": {name: item}})
                if bad is None:
                    meta[name] = item
                else:
                    warnings.append(f"ignored malformed envelope field: {bad}")
            kept[key] = meta
        else:
            warnings.append(f"ignored malformed envelope field: {error}")
    return kept


def _not_object(index: int) -> Any:
    raise ContractError("not a valid content block: expected a JSON object")


def parse_legacy_response(data: Document, *, source: str = "") -> LegacyToolCallResponse:
    obj = _as_object(data, "legacy tool_call_response", source)
    return _validate(LegacyToolCallResponse, obj, "legacy tool_call_response", source)


def parse_migrated_response(data: Document, *, source: str = "") -> MigratedToolCallResponse:
    obj = _as_object(data, "migrated tool_call_response", source)
    return _validate(MigratedToolCallResponse, obj, "migrated tool_call_response", source)


def parse_normalized(data: Document, *, source: str = "") -> NormalizedOutcome:
    obj = _as_object(data, "normalized outcome", source)
    return _validate(NormalizedOutcome, obj, "normalized outcome", source)


def dump(model: BaseModel) -> dict[str, Any]:
    """A model as the JSON object it stands for: aliases, only the fields that were set."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)
