"""events.json nested 100000 levels deep (RecursionError bait), at top level and inside a legacy event."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


DEPTH = 100000


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    a = convs / "17700000150-deep-arrays"
    a.mkdir()
    H.write(a / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    H.write(a / "events.json", "[" * DEPTH + "]" * DEPTH + "\n")
    # valid legacy events, one carrying an unknown field nested 100000 objects deep
    b = convs / "17700000151-deep-unknown-field"
    b.mkdir()
    H.write(b / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    ev = H.real_bytes(H.LEGACY_A).decode()
    deep = '{"a":' * DEPTH + "0" + "}" * DEPTH
    marker = '"type": "tool_call_response",'
    i = ev.index(marker) + len(marker)
    H.write(b / "events.json", ev[:i] + '\n    "x_deep": ' + deep + "," + ev[i:])
    # deep metadata and base_config next to valid events
    c = convs / "17700000152-deep-metadata"
    H.copy_conv(H.LEGACY_B, c)
    H.write(c / "metadata.json", '{"title": ' + "[" * DEPTH + "]" * DEPTH + "}\n")
    H.write(c / "base_config.json", "{\"x\":" * DEPTH + "1" + "}" * DEPTH + "\n")
    # unbalanced: opens only
    d = convs / "17700000153-deep-unclosed"
    d.mkdir()
    H.write(d / "events.json", "[{\"type\": " * DEPTH)
    return {
        "description": "Nesting 100000 levels deep: an events.json of nested empty arrays, a valid legacy "
                       "events.json with an unknown field nested 100000 objects deep inside a tool_call_response "
                       "(Python json raises RecursionError, not ValueError), a deep metadata.json/base_config.json "
                       "beside real events, and 100000 unclosed openers. Each is reported in one line, never a "
                       "RecursionError traceback or a crash (stack overflow); the control is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000150-deep-arrays", "17700000153-deep-unclosed"],
    }
