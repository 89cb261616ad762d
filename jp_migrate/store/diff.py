"""A reviewer's diff of a migration: one hunk per changed event, payloads decoded, long ones cut.

The stored form is base64, which nobody can review; this shows what each event
says before and after. It is a view, not a patch: apply a migration by running it.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

from jp_migrate.convert.encoding import decode_payload, map_payloads

MAX_PAYLOAD = 240  # characters of a decoded payload shown before it is cut


def _cut(text: str) -> str:
    if len(text) <= MAX_PAYLOAD:
        return text
    return f"{text[:MAX_PAYLOAD]}… [{len(text) - MAX_PAYLOAD} more characters]"


def readable(event: Mapping[str, Any]) -> dict[str, Any]:
    """The event with its payloads decoded and cut (content only; nothing else changes)."""
    out = dict(event)
    content = out.get("content")
    if isinstance(content, str):
        out["content"] = _cut(decode_payload(content)[0])
    elif isinstance(content, list):
        out["content"] = [
            map_payloads(b, lambda s: _cut(decode_payload(s)[0])) if isinstance(b, dict) else b
            for b in content
        ]
    return out


def _lines(event: Mapping[str, Any]) -> list[str]:
    return json.dumps(readable(event), indent=2, ensure_ascii=False).splitlines()


def event_diff(path: str, changes: Mapping[int, tuple[Any, Any]]) -> str:
    """`changes`: event index → (before, after). Unified-diff text, one hunk per event."""
    out = [f"--- a/{path}", f"+++ b/{path}"]
    for index in sorted(changes):
        before, after = changes[index]
        old, new = _lines(before), _lines(after)
        event_id = before.get("id", "") if isinstance(before, dict) else ""
        out.append(f"@@ events[{index}] {before.get('type', '')} {event_id} @@".replace("  ", " "))
        body = list(difflib.unified_diff(old, new, lineterm="", n=max(len(old), len(new))))
        out.extend(line for line in body[2:] if not line.startswith("@@"))
    return "\n".join(out) + "\n"
