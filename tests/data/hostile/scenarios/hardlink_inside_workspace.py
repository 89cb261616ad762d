"""Two conversations whose events.json are the same inode (hard links inside the workspace)."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    a = H.control(convs)
    b = "17700000250-hardlink-twin"
    (convs / b).mkdir()
    H.write(convs / b / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    os.link(convs / a / "events.json", convs / b / "events.json")
    c = "17700000251-hardlink-triplet"
    (convs / c).mkdir()
    os.link(convs / a / "events.json", convs / c / "events.json")
    os.link(convs / a / "metadata.json", convs / c / "metadata.json")
    return {
        "description": "Three conversations whose events.json are hard links to one inode inside the workspace. "
                       "In-place writing migrates all three through the first and then backs up already-"
                       "migrated bytes for the others, so rollback restores wrong content; rename-based "
                       "writing splits the links. Either migrate each correctly and restore each exactly on "
                       "rollback, or report the shared inode. All three must end byte-identical to the real "
                       "source after rollback.",
        "expect_migrated": [a],
        "expect_untouched": [],
        "expect_restored": [a, b, c],
    }
