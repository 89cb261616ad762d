"""One legacy tool run → the RFD 058 envelope the new host must read (SPEC §1, §2, §4).

Pure: bytes in, text out. The run's reading is the legacy host's
(`contract.plain`, `convert.failure`); the models (pydantic) load only when the
plain reading cannot decide (a question, a field of an odd type).

Envelope policy (seed 001, SPEC §4): an envelope already in the new format
passes through byte for byte; payloads are copied, never reformatted; a
failure seen only as an exit status or stderr becomes an `isError` result
carrying the text the legacy host stored, its details under `_meta`.
"""

from __future__ import annotations

import re

from jp_migrate.contract.jsontext import dumps_compact, load_json
from jp_migrate.contract.plain import (
    OUTCOME_TAGS,
    envelope_candidate,
    outcome_reading,
    outcome_shape,
)
from jp_migrate.convert.failure import legacy_failure_text
from jp_migrate.errors import ContractError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on this path
if TYPE_CHECKING:
    from typing import Any

# The rule ids an adaptation reports (`--provenance`), one per row of the mapping.
PASSTHROUGH = "adapt-envelope-passthrough"
SUCCESS = "adapt-outcome-success"
ERROR = "adapt-outcome-error"
NEEDS_INPUT = "adapt-outcome-needs-input"
RAW = "adapt-raw-output"
RAW_FAILURE = "adapt-raw-failure"
NOT_UTF8 = "adapt-output-not-utf8"
NOT_RUN = "adapt-tool-not-run"
OVER_LIMIT = "adapt-output-over-limit"
RAW_OVER_LIMIT = "adapt-raw-over-limit-failure"
RULES = {
    PASSTHROUGH: "stdout already an RFD 058 envelope: printed unchanged (never double-wrapped)",
    SUCCESS: "Outcome::Success → one text block holding the content",
    ERROR: "Outcome::Error → isError, the message as text, transient and trace in _meta",
    NEEDS_INPUT: "Outcome::NeedsInput → the pre-amble as text, then a question block",
    RAW: "raw stdout, exit 0 → one text block holding stdout",
    RAW_FAILURE: "raw stdout, exit ≠ 0 → isError, the legacy failure text, details in _meta",
    NOT_UTF8: "stdout not UTF-8 → isError naming the byte, details in _meta",
    NOT_RUN: "the tool could not start or did not finish → isError naming why",
    OVER_LIMIT: "stdout a JSON document larger than the limit → isError naming the limit",
    RAW_OVER_LIMIT: (
        "raw stdout larger than the limit, then a failure → the output as it came, then isError"
        " and a text block naming the failure"
    ),
}
# A sequence's first item, when it is a string (an `Outcome`'s tag, perhaps).
_FIRST_STRING = re.compile(rb'\[\s*("(?:[^"\\]|\\.)*")')
# Where the adapter puts what only it saw (exit status, stderr): a key of its own.
ADAPTER_META = "computer.jp/adapter"
ERROR_META = "computer.jp/error"


class Adapted:
    """What to print (one line, or the tool's own envelope as it was), and why."""

    __slots__ = ("is_error", "rule", "text")

    def __init__(self, text: str, rule: str, is_error: bool) -> None:
        self.text = text
        self.rule = rule
        self.is_error = is_error

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Adapted):
            return NotImplemented
        return (self.text, self.rule, self.is_error) == (other.text, other.rule, other.is_error)

    def __repr__(self) -> str:
        return f"Adapted(text={self.text!r}, rule={self.rule!r}, is_error={self.is_error!r})"


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _failure(text: str, details: dict[str, Any]) -> dict[str, Any]:
    """An isError envelope: `text` as the model reads it, `details` under the adapter's key."""
    return {
        "content": [_text(text)],
        "isError": True,
        "_meta": {ERROR_META: {"transient": False, "trace": []}, ADAPTER_META: details},
    }


def _line(envelope: dict[str, Any]) -> str:
    return dumps_compact(envelope, end="\n")


def adapt(
    name: str, stdout: bytes, stderr: bytes, exit_code: int, details: dict[str, Any] | None = None
) -> Adapted:
    """The envelope for one finished run of the tool `name` (SPEC §2's mapping table);
    `details` (what only the adapter saw) go under `_meta` of a failure, by default the exit
    status and stderr."""
    err = stderr.decode("utf-8", "replace")
    details = details or {"exit_code": exit_code, "stderr": err}
    try:
        out = stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = not_utf8(name, exc.start, stdout[exc.start : exc.start + 1].hex())
        return Adapted(_line(_failure(message, details)), NOT_UTF8, True)
    obj = outcome_reading(out)
    shape = outcome_shape(obj)
    if shape == "success":
        content = obj["content"]
        del out, obj  # the output's text is let go before its content is written out again
        return Adapted(_line({"content": [_text(content)]}), SUCCESS, False)
    if shape == "error":
        meta = {ERROR_META: {"transient": obj["transient"], "trace": list(obj["trace"])}}
        envelope = {"content": [_text(obj["message"])], "isError": True, "_meta": meta}
        return Adapted(_line(envelope), ERROR, True)
    if shape == "models":
        modelled = _modelled(out)
        if modelled is not None:
            return modelled
    if _is_envelope(out):
        return Adapted(out, PASSTHROUGH, False)
    if exit_code != 0:
        return Adapted(
            _line(_failure(legacy_failure_text(name, out, err), details)), RAW_FAILURE, True
        )
    return Adapted(_line({"content": [_text(out)]}), RAW, False)


def may_be_document(head: bytes) -> bool:
    """Whether stdout starting with `head` may be an `Outcome` or an envelope, which only a
    parse of all of it can tell: a JSON object, or a sequence whose first item is an
    `Outcome`'s tag (serde reads `["success", "done"]` as one). Anything else is raw."""
    start = head.lstrip(b" \t\n\r")
    if start[:1] == b"{":
        return True
    if start[:1] != b"[":
        return False
    tag = _FIRST_STRING.match(start)
    if tag is None:
        return False
    try:
        return load_json(tag.group(1)) in OUTCOME_TAGS
    except ContractError:
        return False


def too_large(name: str, size: int, limit: int, details: dict[str, Any]) -> Adapted:
    """stdout a JSON document (perhaps an `Outcome`) larger than the adapter reads whole."""
    reason = (
        f"printed a JSON document of {size} bytes, more than the adapter reads as one "
        f"(--max-message {limit}): it may be an Outcome, which cannot be told without reading it all."
    )
    return not_run(name, reason, details, rule=OVER_LIMIT)


def streamed_failure(details: dict[str, Any]) -> dict[str, Any]:
    """The envelope's members after the text of a streamed raw output that then failed."""
    return {k: v for k, v in _failure("", details).items() if k != "content"}


def _is_envelope(out: str) -> bool:
    try:
        return envelope_candidate(load_json(out))
    except ContractError:
        return False


def _modelled(out: str) -> Adapted | None:
    """An `Outcome` only the models can read (a question, an odd field), as its envelope."""
    from jp_migrate.contract.outcome import OutcomeError, OutcomeNeedsInput
    from jp_migrate.contract.parse import dump, try_outcome
    from jp_migrate.convert.upgrade import outcome_to_envelope

    outcome = try_outcome(out)
    if outcome is None:
        return None
    rule = NEEDS_INPUT if isinstance(outcome, OutcomeNeedsInput) else SUCCESS
    if isinstance(outcome, OutcomeError):
        rule = ERROR
    envelope = dump(outcome_to_envelope(outcome))
    return Adapted(_line(envelope), rule, isinstance(outcome, OutcomeError))


def not_run(name: str, reason: str, details: dict[str, Any], *, rule: str = NOT_RUN) -> Adapted:
    """The tool never ran, or never finished: `reason` is the one line the model reads."""
    return Adapted(_line(_failure(f"Tool '{name}' {reason}", details)), rule, True)


def not_utf8(name: str, at: int, byte: str) -> str:
    """The text for output that is not valid UTF-8 (`byte` in hex, at offset `at`)."""
    return f"Tool '{name}' printed output that is not valid UTF-8 (byte {at}: 0x{byte})."
