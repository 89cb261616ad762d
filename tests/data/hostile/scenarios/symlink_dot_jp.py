"""The workspace's '.jp' is a symlink to an outside storage root."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    ext = outside / "victim_jp"
    convs = ext / "conversations"
    H.copy_conv(H.LEGACY_A, convs / H.LEGACY_A)
    H.copy_conv(H.LEGACY_B, convs / H.LEGACY_B)
    (ext / ".jp-migrate").mkdir()  # so a tool finds a ready state dir outside
    root.mkdir(parents=True, exist_ok=True)
    os.symlink(ext, root / ".jp")
    return {
        "description": ".jp is a symlink to an outside storage root (with real legacy conversations and a "
                       "pre-made .jp-migrate dir). The tool must refuse without reading conversations or "
                       "writing backups/locks/run records through the link.",
        "expect_migrated": [],
        "expect_untouched": [],
        "commands": [["conversations", "--dry-run", "."], ["conversations", "."], ["check", "."],
                     ["rollback", "."]],
    }
