"""Unix-domain sockets named events.json and metadata.json."""
import json
import os
import pathlib
import stat
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    a = convs / "17700000050-events-socket"
    a.mkdir()
    H.write(a / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    H.mksock(a / "events.json")
    b = convs / "17700000051-metadata-socket"
    H.copy_conv(H.LEGACY_B, b)
    os.unlink(b / "metadata.json")
    H.mksock(b / "metadata.json")
    # a socket as the whole conversations entry
    H.mksock(convs / "17700000052-socket-entry")
    return {
        "description": "events.json is a unix socket (open() gives ENXIO), metadata.json is a socket next to "
                       "real legacy events, and one conversations entry is itself a socket. Each must be "
                       "reported in one line, never a traceback; the control conversation is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000050-events-socket"],
    }
