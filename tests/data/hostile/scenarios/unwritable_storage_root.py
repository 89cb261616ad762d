"""'.jp' is mode 0555 so '.jp/.jp-migrate' cannot be created (non-root)."""
import json
import os
import pathlib
import stat
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    H.control(convs)
    H.control(convs, H.LEGACY_B)
    os.chmod(root / ".jp", 0o555)
    os.chmod(root, 0o555)
    return {
        "description": ".jp and the workspace root are mode 0555: as non-root the tool cannot create "
                       ".jp/.jp-migrate (backups, locks, run records), so it must refuse cleanly in one line "
                       "and leave every conversation untouched (no migration without a backup), and must NOT "
                       "fall back to /tmp or $HOME. As root chmod stops nothing and a normal migration is "
                       "fine, so expect lists are empty; compare outside and the absence of new files in "
                       "/tmp only. Cleanup needs chmod u+w first.",
        "expect_migrated": [],
        "expect_untouched": [],
    }
