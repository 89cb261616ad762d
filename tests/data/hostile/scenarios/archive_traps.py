"""conversations/.archive as a link to outside, and a real .archive holding trapped entries."""
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
    os.symlink(v["convs_dir"], convs / ".archive")
    # a second workspace-like dir in the same root: nested store with a real .archive
    nested = H.workspace(root / "second")
    ctl2 = H.control(nested)
    arch = nested / ".archive"
    H.copy_conv(H.LEGACY_B, arch / H.LEGACY_B)                           # a genuine archived conversation
    t = arch / "17700000220-archived-link"
    t.mkdir()
    os.symlink(v["events"], t / "events.json")
    os.symlink(v["conv_a"], arch / "17700000221-archived-dir-link")
    os.symlink("..", arch / "17700000222-archive-parent-link")
    return {
        "description": "In '.', conversations/.archive is a symlink to an outside dir of real conversations "
                       "(must not be followed). In 'second', a real .archive holds a genuine archived "
                       "conversation (may be migrated or skipped), an archived conversation whose events.json "
                       "links outside, an archived dir link to outside and '.archive/x' -> '..' (recursion). "
                       "The two top-level controls are migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": [],
        "commands": [["conversations", "."], ["conversations", "second"], ["check", "."],
                     ["check", "second"], ["rollback", "second"], ["rollback", "."]],
        "expect_migrated_other_workspaces": {"second": [ctl2]},
    }
