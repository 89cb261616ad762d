"""Plausible file names inside '.jp/.jp-migrate' (lock files, pointers, indexes) are links to outside
files, FIFOs and dangling targets."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


FILE_NAMES = ["lock", "LOCK", ".lock", "jp-migrate.lock", "migrate.lock", "run.lock", "state.json",
              "index.json", "LAST", "last_run", "last-run", "latest.json", "manifest.json", "journal.json",
              "runs.json", "version"]


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    state = root / ".jp" / ".jp-migrate"
    (state / "locks").mkdir(parents=True)
    (state / "runs").mkdir()
    for i, n in enumerate(FILE_NAMES):
        kind = i % 3
        if kind == 0:
            os.symlink(v["secret"], state / n)
        elif kind == 1:
            os.symlink(outside / ("never_created_" + n), state / n)   # dangling: O_CREAT would create it outside
        else:
            fifo_out = outside / ("fifo_" + n)
            H.mkfifo(fifo_out)
            os.symlink(fifo_out, state / n)                           # opening blocks forever
    # per-conversation lock names inside the tool's locks dir
    cid = ctl.split("-")[0]
    for n in (cid + ".lock", ctl + ".lock", cid, ctl, "global.lock", "store.lock"):
        os.symlink(v["secret"], state / "locks" / n)
    return {
        "description": "Inside a real .jp/.jp-migrate, plausible lock/pointer/index file names (top level and "
                       "under locks/, keyed by conversation id too) are symlinks to an outside secret, to "
                       "dangling outside paths (O_CREAT would create them outside) and to outside FIFOs "
                       "(opening blocks). The tool must not follow any of them, must not hang, and must "
                       "not create files outside. Refusing the run is acceptable.",
        "expect_migrated": [],
        "expect_untouched": [],
    }
