"""5000 empty conversation dirs plus 1000 metadata-only dirs around two real conversations."""
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
    ctl2 = H.control(convs, H.LEGACY_B)
    for i in range(5000):
        (convs / f"{17800000000 + i}").mkdir()
    meta = H.real_bytes(H.LEGACY_A, "metadata.json")
    for i in range(1000):
        d = convs / f"{17810000000 + i}-meta-only"
        d.mkdir()
        H.write(d / "metadata.json", meta)
    return {
        "description": "6000 conversation dirs with no events.json (5000 empty, 1000 metadata-only) around two "
                       "real legacy conversations. Must finish in reasonable time, not exhaust file "
                       "descriptors, not create an events.json or lock/backup per empty dir, and migrate (then "
                       "roll back) both real ones. The empty dirs must still exist afterwards.",
        "expect_migrated": [ctl, ctl2],
        "expect_untouched": ["17800000000", "17800004999", "17810000000-meta-only", "17810000999-meta-only"],
    }
