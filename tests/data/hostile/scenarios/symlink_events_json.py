"""events.json planted as symlinks: to an outside legacy store file (absolute and relative),
and to a sibling conversation's events.json inside the workspace."""
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
    # absolute link to an outside file holding real legacy events
    a = convs / "17700000001-events-abs-link"
    a.mkdir()
    H.write(a / "metadata.json", H.real_bytes(H.LEGACY_B, "metadata.json"))
    os.symlink(v["events"], a / "events.json")
    # relative link climbing out of the workspace
    b = convs / "17700000002-events-rel-link"
    b.mkdir()
    H.write(b / "metadata.json", H.real_bytes(H.LEGACY_B, "metadata.json"))
    rel = os.path.relpath(v["events"], b)
    os.symlink(rel, b / "events.json")
    # link to an outside conversation's events.json via a chain of two links
    c = convs / "17700000003-events-link-chain"
    c.mkdir()
    H.write(c / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    os.symlink(v["conv"] / "events.json", c / "hop")
    os.symlink("hop", c / "events.json")
    # link to a sibling conversation inside the workspace (would migrate the sibling twice / via alias)
    d = convs / "17700000004-events-link-to-sibling"
    d.mkdir()
    H.write(d / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    os.symlink(os.path.join("..", ctl, "events.json"), d / "events.json")
    return {
        "description": "events.json is a symlink: absolute and relative (../..) links to an outside legacy "
                       "events file, a two-hop link chain to an outside conversation, and a link to a sibling "
                       "conversation inside the workspace. Outside files must stay byte-identical; the link "
                       "entries must be reported (one line each) and left as links; the real control "
                       "conversation must be migrated exactly once.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000001-events-abs-link", "17700000002-events-rel-link",
                             "17700000003-events-link-chain"],
    }
