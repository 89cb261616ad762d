"""A real '.jp/.jp-migrate' whose plausible subdirectories are pre-planted as links to outside."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


NAMES = ["runs", "run", "locks", "lock", "backups", "backup", "tmp", "staging", "journal", "trash",
         "history", "snapshots", "latest", "current", "last"]


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    H.control(convs, H.LEGACY_B)
    state = root / ".jp" / ".jp-migrate"
    state.mkdir()
    for n in NAMES:
        tgt = outside / ("victim_state_" + n)
        tgt.mkdir()
        H.write(tgt / "keep.txt", f"outside {n}\n")
        os.symlink(tgt, state / n)
    return {
        "description": ".jp/.jp-migrate exists as a real dir, but every plausible subdir name (" + ", ".join(NAMES)
                       + ") is a symlink to an outside dir. Nothing may be created/read through those links. "
                       "The tool may refuse (reporting the link) or work around them (e.g. replacing the link "
                       "inside the workspace, or using other names); so the conversations are in neither list.",
        "expect_migrated": [],
        "expect_untouched": [],
    }
