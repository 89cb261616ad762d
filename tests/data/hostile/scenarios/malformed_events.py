"""A valid JSON array whose events are malformed in every way a migrator might not expect."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    base = H.legacy_events(H.LEGACY_A)
    tr = next(e for e in base if e.get("type") == "tool_call_response")
    odd = [
        1, "string", None, [], [tr],                           # non-object events
        {"type": "tool_call_response"},                        # no id, no content
        dict(tr, content=None), dict(tr, content=123), dict(tr, content=True),
        dict(tr, content={"nested": "obj"}), dict(tr, content=[1, 2]), dict(tr, content=[{"type": "nope"}]),
        dict(tr, content=[{"type": "text"}]), dict(tr, content=[{"type": "text", "text": 5}]),
        dict(tr, is_error="yes"), dict(tr, is_error=None), dict(tr, metadata="not-an-object"),
        dict(tr, metadata={"k": 1, "deep": {"x": ["a" * 10]}}),
        dict(tr, type=None), dict(tr, type=["tool_call_response"]), dict(tr, type="TOOL_CALL_RESPONSE"),
        dict(tr, id=None), dict(tr, id={"x": 1}), dict(tr, timestamp=12345),
        dict(tr, content="!!!not base64!!!"), dict(tr, content="===="), dict(tr, content=""),
        dict(tr, content="\u0000\u0001 control"), dict(tr, content="A" * 1_000_000 + "="),
        {"type": "tool_call_request", "id": "x", "arguments": "not-an-object"},
        {"type": "tool_call_request", "id": "x", "arguments": {"a": [[[{"b": 1}]]]}},
        {"type": "future_event_kind", "payload": {"whatever": 1}},
    ]
    events = base[:3] + odd + base[3:]
    name = "17700000190-malformed-events"
    d = convs / name
    d.mkdir()
    H.write(d / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    H.write(d / "events.json", H.canon(events))
    return {
        "description": "One events.json that is a valid array mixing real legacy events with non-object "
                       "entries, tool_call_responses whose content is null/number/bool/object/array/bad "
                       "blocks/non-base64/empty/1MB, is_error and metadata of wrong types, type and id of "
                       "wrong types, wrong-case type, and an unknown future event. No KeyError/TypeError "
                       "traceback: either the file is reported as a whole (untouched) or the well-formed "
                       "legacy events migrate while the odd ones pass through byte-identically and are "
                       "reported. The control is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
