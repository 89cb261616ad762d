"""events.json that is truncated, empty, or not an array; and non-standard JSON (NaN, duplicates)."""
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
    ev = H.real_bytes(H.LEGACY_B)
    meta = H.real_bytes(H.LEGACY_B, "metadata.json")
    variants = {
        "17700000170-truncated-half": ev[: len(ev) // 2],
        "17700000171-truncated-mid-escape": ev[: ev.index(b"\\") + 1] if b"\\" in ev else ev[:-3],
        "17700000172-empty-file": b"",
        "17700000173-whitespace-only": b"  \n\t\n",
        "17700000174-null": b"null\n",
        "17700000175-object-not-array": b'{"events": ' + ev + b"}\n",
        "17700000176-string": b'"[]"\n',
        "17700000177-trailing-garbage": ev + b"]]]garbage\n",
        "17700000178-two-documents": ev + ev,
        "17700000179-nan-infinity": ev.replace(b'"is_error": false', b'"is_error": false, "x": NaN, "y": -Infinity', 1),
        "17700000180-comments": b"// jp store\n" + ev,
        "17700000181-single-quotes": ev.replace(b'"type"', b"'type'", 1),
        "17700000182-huge-number": ev.replace(b'"is_error": false', b'"is_error": false, "n": 1' + b"0" * 5000, 1),
    }
    for name, data in variants.items():
        d = convs / name
        d.mkdir()
        H.write(d / "metadata.json", meta)
        H.write(d / "events.json", data)
    # duplicate keys in a legacy event: valid JSON to most parsers; last-wins vs first-wins
    dup = ev.replace(b'"is_error": false', b'"is_error": false, "is_error": true', 1)
    d = convs / "17700000183-duplicate-keys"
    d.mkdir()
    H.write(d / "metadata.json", meta)
    H.write(d / "events.json", dup)
    strict_bad = [n for n in variants if n not in ("17700000179-nan-infinity", "17700000182-huge-number")]
    return {
        "description": "Thirteen broken or non-standard events.json files next to a valid control: truncated "
                       "at half / inside an escape, empty, whitespace, null, an object, a string, trailing "
                       "garbage, two concatenated documents, NaN/-Infinity (Python's json accepts them!), "
                       "// comments, single quotes, a 5000-digit integer (int max-str-digits ValueError), plus "
                       "duplicate is_error keys. Every broken one is reported in one line and left "
                       "byte-identical; the NaN / huge-number / duplicate-key ones may be refused or migrated "
                       "preserving the bytes of what it does not change.",
        "expect_migrated": [ctl],
        "expect_untouched": strict_bad,
    }
