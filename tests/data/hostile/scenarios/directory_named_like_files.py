"""Directories where files are expected: events.json, metadata.json, and the conversations entries' files."""
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
    a = convs / "17700000080-events-is-dir"
    a.mkdir()
    H.write(a / "metadata.json", H.real_bytes(H.LEGACY_A, "metadata.json"))
    H.write(a / "events.json" / "events.json", H.real_bytes(H.LEGACY_A))  # real content one level down
    b = convs / "17700000081-metadata-is-dir"
    H.copy_conv(H.LEGACY_B, b)
    os.unlink(b / "metadata.json")
    (b / "metadata.json").mkdir()
    c = convs / "17700000082-events-is-dir-link-outside"
    c.mkdir()
    (c / "events.json").mkdir()
    os.symlink(v["events"], c / "events.json" / "events.json")
    H.write(convs / "17700000083-plain-file-entry", H.real_bytes(H.LEGACY_A))  # a file where a dir is expected
    return {
        "description": "events.json is a directory (holding a real events.json inside, which must not be "
                       "migrated), metadata.json is a directory next to real legacy events, an events.json "
                       "dir containing a link to outside, and a regular file (with legacy events) sitting "
                       "where a conversation directory is expected. Report each; migrate the control.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000080-events-is-dir", "17700000082-events-is-dir-link-outside"],
    }
