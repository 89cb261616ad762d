"""Conversation dir names with newlines, tabs, leading dashes, control chars, bidi overrides, globs."""
import json
import os
import pathlib
import stat
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


NAMES = ["17700000100-line\nbreak", "17700000101-tab\there", "-17700000102", "--help", "-rf",
         "17700000103-\r\x1b[31mred\x1b[0m", "17700000104-\u202eevil\u202c", "17700000105- spaces ",
         "17700000106-*?[glob]", "17700000107-back\\slash", "17700000108-quote'\"", "...",
         "17700000109-\u00e9\u0301-nfd", " "]


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    for n in NAMES:
        H.copy_conv(H.LEGACY_B, convs / n)
    # also a file name with a newline inside a real conversation
    d = convs / "17700000110-stray-newline-file"
    H.copy_conv(H.LEGACY_A, d)
    H.write(d / "events.json\nfake line", "x")
    return {
        "description": "Conversation dirs named with newline, tab, CR + ANSI escapes, RTL override, leading "
                       "dashes (-rf, --help), spaces, glob chars, backslash, quotes, '...', ' ' — each holds "
                       "real legacy events. Any report that mentions them must stay a single line (escape "
                       "control chars), no name is ever treated as an option, and no traceback. Dirs whose "
                       "names aren't '<id>[-slug]' may be migrated or reported. The control and a real "
                       "conversation containing a file named 'events.json\\nfake line' must be migrated.",
        "expect_migrated": [ctl, "17700000110-stray-newline-file"],
        "expect_untouched": [],
    }
