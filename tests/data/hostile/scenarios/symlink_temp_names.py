"""Every temporary/backup-looking sibling name of events.json is a pre-planted link to outside."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


TEMP_NAMES = ["events.json.tmp", ".events.json.tmp", ".events.json.partial", "events.json.partial",
              ".events.json.jp-migrate.partial", "events.json.jp-migrate.partial", "events.json.jp-migrate.tmp",
              ".events.json.jp-migrate.tmp", "events.json.bak", "events.json.orig", "events.json.new",
              "events.json.old", "events.json~", ".events.json.swp", "events.json.lock", ".events.json.lock",
              "events.json.backup", ".events.json.new", "metadata.json.tmp", ".jp-migrate.tmp",
              ".jp-migrate.lock", "events.json.jp-migrate.bak", ".events.json.jp-migrate.new"]


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    trap = convs / H.LEGACY_B
    H.copy_conv(H.LEGACY_B, trap)
    for i, n in enumerate(TEMP_NAMES):
        if i % 2 == 0:
            os.symlink(v["events"], trap / n)                                 # existing outside file
        else:
            os.symlink(outside / ("never_created_" + n.strip(".")), trap / n)  # dangling -> outside
    # also in the conversations dir itself and in .jp
    os.symlink(v["secret"], convs / ".tmp")
    os.symlink(v["secret"], root / ".jp" / ".jp-migrate.tmp")
    return {
        "description": "Next to a real legacy events.json, " + str(len(TEMP_NAMES)) + " temp/backup-looking "
                       "names (events.json.tmp, .events.json.partial, .events.json.jp-migrate.partial, "
                       "events.json.bak, ...) are links to an outside events file or dangling links into "
                       "outside. A writer using fixed temp names without O_EXCL|O_NOFOLLOW writes outside or "
                       "creates outside files. The control conversation must be migrated; the trapped one may "
                       "be migrated (unique temp names) or reported, but nothing outside may change or appear.",
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
