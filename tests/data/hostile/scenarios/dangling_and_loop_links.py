"""Dangling symlinks and symlink loops at every level."""
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
    # dangling events.json pointing into outside (O_CREAT through it would create outside file)
    a = convs / "17700000020-dangling-events"
    a.mkdir()
    H.write(a / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    os.symlink(v["missing"], a / "events.json")
    # dangling events.json pointing inside the workspace
    b = convs / "17700000021-dangling-events-inside"
    b.mkdir()
    os.symlink("no-such-file.json", b / "events.json")
    # self loop
    c = convs / "17700000022-self-loop"
    c.mkdir()
    os.symlink("events.json", c / "events.json")
    # two-link loop
    d = convs / "17700000023-two-link-loop"
    d.mkdir()
    os.symlink("b.json", d / "events.json")
    os.symlink("events.json", d / "b.json")
    # directory loops
    os.symlink("17700000025-dir-loop-b", convs / "17700000024-dir-loop-a")
    os.symlink("17700000024-dir-loop-a", convs / "17700000025-dir-loop-b")
    os.symlink(".", convs / "17700000026-dot-link")          # conversations/<x> -> conversations (recursion)
    os.symlink("..", convs / "17700000027-parent-link")      # -> .jp (contains .jp-migrate!)
    e = convs / "17700000028-inner-loop"
    e.mkdir()
    H.copy_conv(H.LEGACY_B, e)
    os.symlink(".", e / "sub")                               # recursion inside a real conversation
    os.symlink("../..", e / "up")
    return {
        "description": "Dangling events.json links (to an outside path that must never be created, and to a "
                       "missing inside name), a self loop, a two-link loop, two conversation-dir links "
                       "forming a loop, conversations/<x> -> '.', conversations/<x> -> '..', and a real "
                       "legacy conversation containing 'sub' -> '.' and 'up' -> '../..'. Each bad entry must "
                       "be reported once (no ELOOP traceback, no infinite walk) and the control migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000020-dangling-events", "17700000021-dangling-events-inside",
                             "17700000022-self-loop", "17700000023-two-link-loop"],
    }
