"""Leftovers of crashed runs in '.jp/.jp-migrate': truncated/garbage/deep records, FIFOs, odd entries."""
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
    ctl2 = H.control(convs, H.LEGACY_B)
    state = root / ".jp" / ".jp-migrate"
    runs = state / "runs"
    odd = {
        "00000000000001-truncated": ("manifest.json", b'{"files": [{"path": ".jp/conv'),
        "00000000000002-garbage": ("manifest.json", b"\xff\xfe\x00garbage"),
        "00000000000003-deep": ("manifest.json", b"[" * 100000 + b"]" * 100000),
        "00000000000004-empty": ("manifest.json", b""),
        "00000000000005-null": ("manifest.json", b"null"),
        "00000000000006-wrong-types": ("manifest.json", b'{"files": 5, "conversations": "x", "entries": [null, 1]}'),
    }
    for rid, (fname, data) in odd.items():
        H.write(runs / rid / fname, data)
        H.write(runs / rid / "run.json", data)
    (runs / "00000000000007-empty-dir").mkdir(parents=True)
    (runs / "00000000000008-fifo").mkdir()
    for fname in ("manifest.json", "run.json", "record.json"):
        H.mkfifo(runs / "00000000000008-fifo" / fname)
    H.write(runs / "00000000000009-a-file", "not a dir\n")
    (runs / "00000000000010-manifest-is-dir" / "manifest.json").mkdir(parents=True)
    (runs / "00000000000010-manifest-is-dir" / "run.json").mkdir()
    os.mkdir(os.path.join(os.fsencode(runs), b"\xff\xfe-bad-name"))
    H.write(state / "locks" / "stale.lock", "pid 999999\n")
    return {
        "description": "A .jp/.jp-migrate full of debris from crashed or foreign runs (all sorting BEFORE any "
                       "new run id): truncated, binary, 100000-deep, empty, null and wrongly-typed records, an "
                       "empty run dir, FIFOs where records would be, a file where a run dir should be, "
                       "directories named manifest.json/run.json, a non-UTF-8 run dir and a stale lock. "
                       "Migration must still work; rollback must restore the tool's own new run (both "
                       "conversations byte-identical to the source after it) without hanging on the FIFOs "
                       "or crashing on the debris.",
        "expect_migrated": [ctl, ctl2],
        "expect_untouched": [],
        "expect_restored": [ctl, ctl2],
    }
