"""255-byte conversation dir names (ASCII and multibyte) and a deep path near PATH_MAX."""
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
    ctl = H.control(convs)
    ascii255 = "17700000120-" + "a" * (255 - 12)
    multi255 = "17700000121-" + "\u3042" * 81            # 12 + 81*3 = 255 bytes
    assert len(ascii255.encode()) == 255 and len(multi255.encode()) == 255
    H.copy_conv(H.LEGACY_B, convs / ascii255)
    H.copy_conv(H.LEGACY_A, convs / multi255)
    # a real conversation with a 255-byte stray file name next to events.json
    d = convs / "17700000122-long-stray-file"
    H.copy_conv(H.LEGACY_B, d)
    H.write(d / ("x" * 255), "stray\n")
    # a deep directory chain inside a conversation (path length well past 4096)
    deep = os.fsencode(convs / "17700000123-deep-junk")
    os.mkdir(deep)
    fd = os.open(deep, os.O_RDONLY)
    for _ in range(40):
        os.mkdir(b"d" * 200, dir_fd=fd)
        nfd = os.open(b"d" * 200, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.close(fd)
    return {
        "description": "Legal conversation dirs whose names are exactly 255 bytes (ASCII, and 3-byte UTF-8), "
                       "holding real legacy events: a tool deriving temp/backup names by appending to the "
                       "dir name (e.g. '<name>.bak') hits ENAMETOOLONG and must still manage. Plus a 255-byte "
                       "stray file next to events.json and a junk conversation with a directory chain longer "
                       "than PATH_MAX. All real conversations must be migrated and rolled back.",
        "expect_migrated": [ctl, ascii255, multi255, "17700000122-long-stray-file"],
        "expect_untouched": [],
    }
