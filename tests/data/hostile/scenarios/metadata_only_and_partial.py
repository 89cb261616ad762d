"""Conversations missing events.json: metadata-only, base_config-only, empty, messages-era."""
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
    a = convs / "17700000200-metadata-only"
    a.mkdir()
    H.write(a / "metadata.json", H.real_bytes(H.LEGACY_B, "metadata.json"))
    b = convs / "17700000201-base-config-only"
    b.mkdir()
    H.write(b / "base_config.json", "{}\n")
    c = convs / "17700000202-empty-dir"
    c.mkdir()
    era = convs / ("17462040865-messages-era")
    H.copy_conv(H.MSG_ERA, era, H.REAL_MSG_ERA)
    plain = convs / H.PLAIN
    H.copy_conv(H.PLAIN, plain)
    e = convs / "17700000203-events-lowercase-variant"
    e.mkdir()
    H.write(e / "Events.json", H.real_bytes(H.LEGACY_A))       # wrong case: not events.json
    H.write(e / "events.JSON", H.real_bytes(H.LEGACY_A))
    return {
        "description": "Conversations without an events.json: metadata.json only (real stores have these; JP "
                       "warns and skips), base_config.json only, an empty dir, a messages-era conversation "
                       "(messages.json, real data), and one holding Events.json / events.JSON only. Plus a "
                       "real conversation with no tool responses (nothing to migrate). None may be given an "
                       "events.json or otherwise changed; the control is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000200-metadata-only", "17700000201-base-config-only", "17700000202-empty-dir",
                             "17462040865-messages-era", H.PLAIN, "17700000203-events-lowercase-variant"],
    }
