"""Stored `tool_call_response` events: legacy ⇄ migrated (SPEC §3), on JSON objects.

Pure functions on decoded JSON: the store layer reads and writes files. An
event's key order and unknown fields are kept; only `content` changes.
"""

from __future__ import annotations

from typing import Any, Literal

from jp_migrate.contract.blocks import ContentBlock
from jp_migrate.contract.parse import (
    dump,
    parse_block,
    parse_legacy_response,
    parse_migrated_response,
)
from jp_migrate.convert.encoding import (
    Encoding,
    TargetEncoding,
    decode_payload,
    encode_payload,
    map_payloads,
    may_be_urlsafe,
    payloads,
    target_for,
)
from jp_migrate.convert.render import render
from jp_migrate.convert.upgrade import legacy_to_blocks
from jp_migrate.errors import ContractError

Event = dict[str, Any]


def is_response(event: Any) -> bool:
    return isinstance(event, dict) and event.get("type") == "tool_call_response"


def is_migrated(event: Event) -> bool:
    return is_response(event) and isinstance(event.get("content"), list)


class ResponseUpgrade:
    """What upgrading one response did: the migrated event, the decoded legacy text, the
    encoding it was stored in (`source`) and the one written (`target`), the rules applied.

    Built by `deferred`, the decoding waits until `text`, `source` or `target` is
    read: migrating a standard-base64 or plain store in `auto` encoding keeps each
    payload string as it is, so a whole-store run need not decode them at all.
    """

    __slots__ = ("_decoded", "_encoding", "_stored", "event", "rules")

    def __init__(
        self,
        event: Event,
        text: str,
        source: Encoding,
        target: TargetEncoding,
        rules: tuple[str, ...] = (),
    ) -> None:
        self.event = event
        self.rules = rules
        self._decoded: tuple[str, Encoding, TargetEncoding] | None = (text, source, target)
        self._stored = ""
        self._encoding: Literal["auto", "base64", "plain"] = "auto"

    @classmethod
    def deferred(
        cls,
        event: Event,
        stored: str,
        encoding: Literal["auto", "base64", "plain"],
        rules: tuple[str, ...] = (),
    ) -> ResponseUpgrade:
        upgrade = cls.__new__(cls)
        upgrade.event, upgrade.rules = event, rules
        upgrade._decoded, upgrade._stored, upgrade._encoding = None, stored, encoding
        return upgrade

    def _resolved(self) -> tuple[str, Encoding, TargetEncoding]:
        if self._decoded is None:
            text, source = decode_payload(self._stored)
            self._decoded = (text, source, _reads_back([text], target_for(source, self._encoding)))
        return self._decoded

    @property
    def text(self) -> str:
        """The decoded (and repaired) legacy payload."""
        return self._resolved()[0]

    @property
    def source(self) -> Encoding:
        return self._resolved()[1]

    @property
    def target(self) -> TargetEncoding:
        return self._resolved()[2]

    @property
    def repaired(self) -> bool:
        if self._decoded is None and not may_be_urlsafe(self._stored):
            return False  # answered without decoding: only a URL-safe payload is repaired
        return self.source == "urlsafe"

    def _key(self) -> tuple[Any, ...]:
        return (self.event, self.text, self.source, self.target, self.rules)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResponseUpgrade) and self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # holds a dict, like the dataclass it replaces

    def __repr__(self) -> str:
        text, source, target = self._resolved()
        return (
            f"ResponseUpgrade(event={self.event!r}, text={text!r}, source={source!r}, "
            f"target={target!r}, rules={self.rules!r})"
        )


def _reads_back(texts: list[str], target: TargetEncoding) -> TargetEncoding:
    """`target`, unless plain payloads would be read back as base64 (SPEC §3 detection).

    JP's reader decodes any payload that is valid base64 of UTF-8, so plain text
    such as `b2s=` would reach the model as `ok`. An event whose payloads all read
    as base64 is stored as base64 instead: lossless beats the requested encoding.
    """
    if target == "plain" and texts and all(decode_payload(t)[1] != "plain" for t in texts):
        return "base64"
    return target


def encode_blocks(blocks: list[ContentBlock], encoding: TargetEncoding) -> list[dict[str, Any]]:
    """Blocks as stored JSON, payload fields in the store's encoding."""
    return [map_payloads(dump(b), lambda s: encode_payload(s, encoding)) for b in blocks]


def upgrade_response(
    event: Event,
    *,
    encoding: Literal["auto", "base64", "plain"] = "auto",
    blocks: list[ContentBlock] | None = None,
    rules: tuple[str, ...] = (),
) -> ResponseUpgrade | None:
    """The migrated form of a legacy response, or None when it is migrated already.

    `blocks` (from an opt-in rule) replaces the faithful single text block; it
    must render to exactly the legacy text, or ContractError is raised.
    """
    if is_migrated(event):
        if not _plain_shape(event, migrated=True):
            parse_migrated_response(event)
        return None
    if blocks is None and _plain_shape(event, migrated=False):
        return _faithful_fast(event, encoding, rules)
    parse_legacy_response(event)
    text, source = decode_payload(event["content"])
    if blocks is None:
        blocks = legacy_to_blocks(text)
    elif render(blocks) != text:
        raise ContractError(f"rules {', '.join(rules)} changed the rendered text", field="content")
    target = _reads_back(
        [p for b in blocks for p in payloads(dump(b))], target_for(source, encoding)
    )
    migrated = {
        k: (encode_blocks(blocks, target) if k == "content" else v) for k, v in event.items()
    }
    return ResponseUpgrade(migrated, text, source, target, rules)


def _plain_shape(event: Event, *, migrated: bool) -> bool:
    """The common, simple shape of a stored response, checked without pydantic (a fast path).

    True only where the pydantic model would accept the event too: no metadata
    (its JSON values are the model's to check), and for a migrated event only
    text blocks with exactly `type` and `text`. Anything else takes the model.
    """
    timestamp = event.get("timestamp")
    if not (
        isinstance(event.get("id"), str)
        and type(event.get("is_error")) is bool
        and (timestamp is None or isinstance(timestamp, str))
        and event.get("metadata") is None
    ):
        return False
    content = event.get("content")
    if not migrated:
        return isinstance(content, str)
    return isinstance(content, list) and all(
        type(b) is dict
        and len(b) == 2
        and b.get("type") == "text"
        and isinstance(b.get("text"), str)
        for b in content
    )


def is_plain_legacy(event: Event) -> bool:
    """A legacy response of the common shape: `upgrade_response` accepts it without the model."""
    return is_response(event) and _plain_shape(event, migrated=False)


def _faithful_fast(
    event: Event, encoding: Literal["auto", "base64", "plain"], rules: tuple[str, ...]
) -> ResponseUpgrade:
    """`upgrade_response` for a plain legacy event, without building models: the same result."""
    stored = event["content"]
    if encoding == "auto" and not may_be_urlsafe(stored):
        # Standard base64 stays standard base64 and plain stays plain: the payload is `stored`
        # either way, so decoding waits until someone asks for the text.
        migrated = dict(event)  # `content` is a key already: the order of keys is kept
        migrated["content"] = [{"type": "text", "text": stored}]
        return ResponseUpgrade.deferred(migrated, stored, encoding, rules)
    text, source = decode_payload(stored)
    target = _reads_back([text], target_for(source, encoding))
    # decode_payload only calls canonical base64 "base64", so re-encoding would give `stored` back.
    payload = stored if source == target else encode_payload(text, target)
    migrated = dict(event)
    migrated["content"] = [{"type": "text", "text": payload}]
    return ResponseUpgrade(migrated, text, source, target, rules)


def decode_blocks(stored: list[Any]) -> tuple[list[ContentBlock], Encoding]:
    """Stored blocks with their payloads decoded, and the encoding the event is in.

    An event is base64 when every payload decodes as base64, else plain (its
    payloads are kept as they are), so one event never mixes the two.
    """
    if not all(isinstance(b, dict) for b in stored):
        raise ContractError("not a valid content block: expected a JSON object", field="content")
    found = [decode_payload(p) for b in stored for p in payloads(b)]
    if all(enc != "plain" for _, enc in found):
        decoded = iter(text for text, _ in found)
        blocks = [map_payloads(b, lambda _s: next(decoded)) for b in stored]
        encoding: Encoding = "base64"
    else:
        blocks, encoding = list(stored), "plain"
    return [parse_block(b) for b in blocks], encoding


def downgrade_response(
    event: Event, *, encoding: Literal["auto", "base64", "plain"] = "auto"
) -> Event:
    """The legacy form of a migrated response: its blocks rendered to one string.

    A legacy event passes through unchanged. `auto` keeps the payloads' encoding.
    """
    if not is_migrated(event):
        parse_legacy_response(event)
        return event
    parse_migrated_response(event)
    blocks, source = decode_blocks(event["content"])
    text = render(blocks)
    stored = encode_payload(text, _reads_back([text], target_for(source, encoding)))
    return {k: (stored if k == "content" else v) for k, v in event.items()}


def downgrade_drops(event: Event) -> list[str]:
    """What downgrading a migrated event would drop: binary content (an image, audio, a
    resource's blob), which the legacy string cannot hold; empty when nothing is lost."""
    from jp_migrate.contract.blocks import AudioBlock, ImageBlock, ResourceBlock

    if not is_migrated(event):
        return []
    blocks, _source = decode_blocks(event["content"])
    dropped: list[str] = []
    for block in blocks:
        if isinstance(block, ImageBlock | AudioBlock):
            dropped.append(f"an {block.type} block")
        elif (
            isinstance(block, ResourceBlock)
            and block.resource.blob is not None
            and (block.formatted or block.resource.formatted) is None
        ):
            dropped.append(f"the blob of {block.resource.uri}")
    return dropped


def survives_downgrade(event: Event) -> bool:
    """Whether downgrading a migrated event and upgrading it again gives it back."""
    if not is_migrated(event):
        return True
    again = upgrade_response(downgrade_response(event))
    return again is not None and again.event == event


def stored_payload_text(event: Event) -> str:
    """The text a stored response holds, legacy or migrated, decoded."""
    if is_migrated(event):
        return render(decode_blocks(event["content"])[0])
    return decode_payload(event["content"])[0]


__all__ = [
    "Event",
    "ResponseUpgrade",
    "decode_blocks",
    "downgrade_response",
    "encode_blocks",
    "is_migrated",
    "is_plain_legacy",
    "is_response",
    "payloads",
    "stored_payload_text",
    "survives_downgrade",
    "upgrade_response",
]
