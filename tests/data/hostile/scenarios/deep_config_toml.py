"""'.jp/config.toml' nested 10000 tables deep (and base_config.json deep), beside real conversations."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


DEPTH = 10000


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    ctl2 = H.control(convs, H.LEGACY_B)
    # a header 10000 dotted keys deep, then inline tables and arrays 10000 deep
    header = "[" + ".".join(["t"] * DEPTH) + "]\nx = 1\n"
    inline = "inline = " + "{ a = " * DEPTH + "1" + " }" * DEPTH + "\n"
    arrays = "arr = " + "[" * DEPTH + "]" * DEPTH + "\n"
    H.write(root / ".jp" / "config.toml",
            "# hostile: nested 10000 levels\n[conversation]\ntools = {}\n\n" + header + "\n[other]\n" + inline + arrays)
    # a second config spelling some tools read
    H.write(root / ".jp" / "config" / "deep.toml", header)
    return {
        "description": ".jp/config.toml holds a table header 10000 dotted keys deep, an inline table 10000 "
                       "deep and an array 10000 deep (tomllib raises RecursionError on the inline one). "
                       "A migrator should not need the config at all; if it reads it, failure must be one "
                       "line, not a traceback. Both real conversations must be migrated; config untouched.",
        "expect_migrated": [ctl, ctl2],
        "expect_untouched": [],
    }
