"""'.jp/conversations' itself is a symlink to an outside directory full of real conversations."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    (root / ".jp").mkdir(parents=True, exist_ok=True)
    os.symlink(v["convs_dir"], root / ".jp" / "conversations")
    return {
        "description": ".jp/conversations is a symlink to an outside dir holding two real legacy "
                       "conversations. The tool must refuse (one clear line, non-traceback exit) and must "
                       "neither read through nor modify the outside conversations; rollback/check likewise.",
        "expect_migrated": [],
        "expect_untouched": [],
        "commands": [["conversations", "--dry-run", "."], ["conversations", "--check", "."],
                     ["conversations", "."], ["check", "."], ["rollback", "."]],
    }
