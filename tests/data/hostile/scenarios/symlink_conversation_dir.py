"""Conversation directories that are symlinks to outside directories (and to a sibling)."""
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
    os.symlink(v["conv"], convs / H.LEGACY_B)                      # looks exactly like a real conversation
    os.symlink(os.path.relpath(v["conv_a"], convs), convs / "17700000010-relative-dir-link")
    os.symlink(ctl, convs / "17700000011-alias-of-control")        # alias inside the workspace
    os.symlink(v["missing"], convs / "17700000012-dangling-dir-link")
    os.symlink("/", convs / "17700000013-link-to-fs-root")
    return {
        "description": "Conversation dirs are symlinks: one named exactly like a real conversation pointing to "
                       "an outside copy of it, one relative link climbing out, an alias of the control "
                       "conversation, a dangling dir link, and a link to '/'. Nothing outside may be read "
                       "through the links or written; the alias must not cause a double migration or a second "
                       "backup that rollback then applies wrongly; only the real control dir is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
