"""events.json (and metadata.json) hard-linked to files outside the workspace."""
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
    hl = convs / H.LEGACY_B
    hl.mkdir()
    os.link(v["events"], hl / "events.json")                       # same inode as outside/victim_events.json
    os.link(v["conv"] / "metadata.json", hl / "metadata.json")
    h2 = convs / "17700000030-hardlinked-twice-inside"
    h2.mkdir()
    os.link(v["conv_a"] / "events.json", h2 / "events.json")
    os.link(v["conv_a"] / "events.json", h2 / "events.json.orig")  # third name inside the workspace
    return {
        "description": "A legacy events.json is a hard link to outside/victim_events.json (same inode), "
                       "metadata.json too; another is linked to outside/victim_conv/... and also to a second "
                       "name in the workspace. Writing in place (open O_TRUNC / write) would change the outside "
                       "file. Migrating via temp file + rename (which breaks the link) is acceptable, as is "
                       "refusing files with st_nlink > 1. Outside files must stay byte-identical across "
                       "migrate AND rollback (rollback must not copy into the old inode either).",
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
