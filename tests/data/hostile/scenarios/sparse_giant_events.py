"""A 3 GiB sparse events.json (NUL bytes, almost no disk) and a 3 GiB sparse file of spaces-then-JSON."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


SIZE = 3 * 1024 ** 3


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    a = convs / "17700000240-sparse-3gib-nul"
    a.mkdir()
    with open(a / "events.json", "wb") as f:
        f.truncate(SIZE)
    b = convs / "17700000241-sparse-3gib-then-json"
    b.mkdir()
    with open(b / "events.json", "wb") as f:
        f.write(b"[")
        f.seek(SIZE)
        f.write(b"]\n")
    return {
        "description": "Resource-exhaustion probe: two 3 GiB sparse events.json files (all NUL; '[' + 3 GiB of "
                       "NULs + ']') taking almost no disk. Reading them whole needs 3+ GiB of RAM (x several "
                       "for decode/parse), and backing them up writes 3 GiB. The tool should cap the size it "
                       "will load, report them in one line, never MemoryError/OOM, never copy them. Harness: "
                       "run under a memory limit and timeout. The control is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": ["17700000240-sparse-3gib-nul", "17700000241-sparse-3gib-then-json"],
    }
