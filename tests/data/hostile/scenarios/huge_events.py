"""A ~50 MB canonical events.json built by repeating real legacy events."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


TARGET = 50 * 1024 * 1024


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    events = H.legacy_events(H.LEGACY_B)
    req = [e for e in events if e.get("type") == "tool_call_request"]
    resp = [e for e in events if e.get("type") == "tool_call_response"]
    unit = []
    for q, r in zip(req, resp):
        unit += [q, r]
    unit_size = len(H.canon(unit).encode())
    reps = TARGET // unit_size + 1
    out = []
    for i in range(reps):
        for e in unit:
            e2 = dict(e)
            e2["id"] = f"{e['id']}-rep{i}"     # distinct ids, still valid legacy events
            out.append(e2)
    name = "17700000140-huge-50mb"
    d = convs / name
    d.mkdir()
    H.write(d / "metadata.json", H.real_bytes(H.LEGACY_B, "metadata.json"))
    with open(d / "events.json", "w", encoding="utf-8") as f:
        f.write(H.canon(events[:1] + out + events[1:]))
    size = (d / "events.json").stat().st_size
    return {
        "description": f"events.json of {size} bytes in JP's canonical format: the real conversation with its "
                       f"tool request/response pairs repeated {reps} times (ids made distinct). It is valid and "
                       "must be migrated (and rolled back) in reasonable time and memory; backup and migrated "
                       "copy together double the disk use.",
        "expect_migrated": [ctl, name],
        "expect_untouched": [],
    }
