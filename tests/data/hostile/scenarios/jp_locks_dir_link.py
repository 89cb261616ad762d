"""'.jp/locks' itself is a symlink to an outside directory; '.jp/.jp-migrate/locks' too."""
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
    ext = outside / "victim_locks"
    ext.mkdir()
    H.write(ext / "keep.txt", "outside locks dir\n")
    os.symlink(ext, root / ".jp" / "locks")
    ext2 = outside / "victim_tool_locks"
    ext2.mkdir()
    (root / ".jp" / ".jp-migrate").mkdir()
    os.symlink(ext2, root / ".jp" / ".jp-migrate" / "locks")
    return {
        "description": ".jp/locks (JP's lock dir) and .jp/.jp-migrate/locks (the tool's lock dir) are symlinks "
                       "to outside dirs. No lock file may be created in them. Refusing the run is acceptable "
                       "(so no expect lists); outside dirs must keep exactly their one file.",
        "expect_migrated": [],
        "expect_untouched": [],
    }
