"""FIFOs named events.json / metadata.json / base_config.json, inside and (via link) outside."""
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
    a = convs / "17700000040-events-fifo"
    a.mkdir()
    H.write(a / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    H.mkfifo(a / "events.json")
    b = convs / "17700000041-metadata-fifo"
    H.copy_conv(H.LEGACY_B, b)
    os.unlink(b / "metadata.json")
    H.mkfifo(b / "metadata.json")
    c = convs / "17700000042-base-config-fifo"
    H.copy_conv(H.LEGACY_B, c)
    H.mkfifo(c / "base_config.json")
    d = convs / "17700000043-link-to-outside-fifo"
    d.mkdir()
    H.mkfifo(outside / "victim_fifo")
    os.symlink(outside / "victim_fifo", d / "events.json")
    return {
        "description": "events.json is a FIFO (opening it for reading blocks forever), metadata.json and "
                       "base_config.json are FIFOs next to real legacy events, and one events.json links to an "
                       "outside FIFO. The tool must not hang (use lstat / O_NONBLOCK / check S_ISREG before "
                       "open), must report each special file in one line and migrate the rest. The "
                       "conversations whose only oddity is a FIFO metadata/base_config may be migrated or "
                       "reported; the harness should apply a timeout.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000040-events-fifo", "17700000043-link-to-outside-fifo"],
    }
