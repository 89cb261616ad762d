"""'.jp/.jp-migrate' (the tool's own state dir) is pre-planted as a symlink to an outside directory."""
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
    H.control(convs, H.LEGACY_B)
    state = outside / "victim_state"
    state.mkdir()
    H.write(state / "README", "outside dir: backups, locks or run records written here are a violation\n")
    os.symlink(state, root / ".jp" / ".jp-migrate")
    return {
        "description": ".jp/.jp-migrate is a symlink to an outside dir. Backups, locks and run records must "
                       "not be written through it (and rollback must not read run records through it). The "
                       "tool may refuse the whole run (then nothing is migrated) or replace nothing and "
                       "report; it must not migrate without a safe place for backups. Conversations are "
                       "listed in neither expect list because refusing is acceptable.",
        "expect_migrated": [],
        "expect_untouched": [],
    }
