"""'.jp/conversations' is a regular file; '.jp/.jp-migrate' is a regular file."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    jp = root / ".jp"
    jp.mkdir(parents=True)
    H.write(jp / "conversations", H.real_bytes(H.LEGACY_A))      # a file where the store dir should be
    H.write(jp / ".jp-migrate", "not a directory\n")              # a file where the state dir should be
    sub = root / "nested"                                          # a second, valid workspace inside root
    convs = H.workspace(sub)
    H.control(convs)
    H.write(sub / ".jp" / ".jp-migrate", "not a directory\n")
    return {
        "description": ".jp/conversations is a regular file (holding legacy events) and .jp/.jp-migrate is a "
                       "regular file. Also a nested workspace 'nested/' with a real conversation but a file "
                       "as its .jp-migrate. The tool must report in one line (ENOTDIR etc., no traceback), "
                       "must not delete or replace those files, and must not migrate without a state dir. "
                       "The nested workspace is only touched by the commands naming it.",
        "expect_migrated": [],
        "expect_untouched": [],
        "commands": [["conversations", "."], ["check", "."], ["rollback", "."],
                     ["conversations", "nested"], ["rollback", "nested"]],
    }
