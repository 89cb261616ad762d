"""metadata.json, base_config.json and .jp/config.toml are links to outside files."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    a = convs / H.LEGACY_B
    a.mkdir()
    H.write(a / "events.json", H.real_bytes(H.LEGACY_B))
    os.symlink(v["conv"] / "metadata.json", a / "metadata.json")
    os.symlink(v["secret"], a / "base_config.json")
    b = convs / "17700000230-events-ok-metadata-dangling"
    H.copy_conv(H.LEGACY_A, b)
    os.unlink(b / "metadata.json")
    os.symlink(v["missing"], b / "metadata.json")
    os.symlink(v["secret"], root / ".jp" / "config.toml")
    os.symlink(v["secret"], root / ".jp" / "config.json")
    return {
        "description": "Real legacy events.json files whose sibling metadata.json / base_config.json are links "
                       "to outside files (or dangling into outside), and .jp/config.toml / config.json linked "
                       "to an outside secret. The tool must not read through them (it has no need to) and must "
                       "not 'fix' them by writing through. Whether those conversations migrate is the tool's "
                       "choice (regular events.json inside the workspace); the control is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
