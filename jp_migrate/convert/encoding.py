"""At-rest encodings of stored payloads (SPEC §3): detection, repair, re-encoding.

Detection order: standard base64 (strict, padded, canonical, valid UTF-8) →
URL-safe base64 (same) → plain. Canonical means re-encoding gives back the same
string, so decode-then-encode is the identity for everything we call base64.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any, Literal

Encoding = Literal["base64", "urlsafe", "plain"]
TargetEncoding = Literal["base64", "plain"]

_URLSAFE_TO_STD = str.maketrans("-_", "+/")


def _canonical_text(text: str) -> str | None:
    """The UTF-8 text `text` holds if it is canonical, padded, standard-alphabet base64.

    binascii's strict mode rejects anything outside the alphabet, misplaced or
    missing padding; re-encoding must give `text` back (canonical). One C pass
    each, no regular expression: this runs on every stored payload.
    """
    if len(text) % 4:
        return None
    try:
        raw = binascii.a2b_base64(text, strict_mode=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
        return None
    return decoded if binascii.b2a_base64(raw, newline=False).decode("ascii") == text else None


def may_be_urlsafe(stored: str) -> bool:
    """Whether `stored` could be URL-safe base64: `-` or `_`, and neither `+` nor `/`.

    Otherwise `decode_payload` calls it standard base64 or plain, never URL-safe.
    """
    return ("-" in stored or "_" in stored) and "+" not in stored and "/" not in stored


def decode_payload(stored: str) -> tuple[str, Encoding]:
    """The text a stored payload holds, and which encoding it was in."""
    text = _canonical_text(stored)
    if text is not None:
        return text, "base64"
    if may_be_urlsafe(stored):
        text = _canonical_text(stored.translate(_URLSAFE_TO_STD))
        if text is not None:
            return text, "urlsafe"
    return stored, "plain"


def encode_payload(text: str, encoding: TargetEncoding) -> str:
    if encoding == "plain":
        return text
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def target_for(source: Encoding, requested: Literal["auto", "base64", "plain"]) -> TargetEncoding:
    """`auto` mirrors the source: standard or URL-safe → standard, plain → plain."""
    if requested != "auto":
        return requested
    return "plain" if source == "plain" else "base64"


# Payload fields of a stored block (SPEC §3): only these carry the at-rest encoding.
def map_payloads(block: dict[str, Any], fn: Callable[[str], str]) -> dict[str, Any]:
    """A copy of a block (JSON object) with `fn` applied to each payload string."""
    out = dict(block)
    kind = out.get("type")
    if kind == "text" and isinstance(out.get("text"), str):
        out["text"] = fn(out["text"])
    elif kind == "resource":
        if isinstance(out.get("formatted"), str):
            out["formatted"] = fn(out["formatted"])
        resource = out.get("resource")
        if isinstance(resource, dict):
            resource = dict(resource)
            for key in ("text", "formatted"):
                if isinstance(resource.get(key), str):
                    resource[key] = fn(resource[key])
            out["resource"] = resource
    return out


def payloads(block: dict[str, Any]) -> list[str]:
    """The payload strings of a stored block, in document order."""
    found: list[str] = []
    map_payloads(block, lambda s: found.append(s) or s)  # type: ignore[func-returns-value]
    return found
