"""Non-UTF-8 byte names for conversation dirs, stray files and .jp entries."""
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
    bconvs = os.fsencode(convs)
    names = [b"17700000090-\xff\xfe-latin1-caf\xe9", b"17700000091-\x80\x81\x82",
             b"17700000092-overlong-\xc0\xaf", b"17700000093-surrogate-\xed\xa0\x80"]
    for n in names:
        H.copy_conv(H.LEGACY_B, os.path.join(bconvs, n))
    # a real conversation containing a stray non-UTF-8 file name
    d = convs / "17700000094-stray-bad-file"
    H.copy_conv(H.LEGACY_A, d)
    with open(os.path.join(os.fsencode(d), b"notes-\xff.json"), "wb") as f:
        f.write(b"{}\n")
    # non-UTF-8 entries in .jp and in a would-be state dir
    os.mkdir(os.path.join(os.fsencode(root / ".jp"), b"\xff\xfe-junk"))
    os.makedirs(os.path.join(os.fsencode(root / ".jp"), b".jp-migrate", b"runs", b"\xff-run"))
    return {
        "description": "Conversation dirs whose names are not UTF-8 (0xff 0xfe, lone continuation bytes, "
                       "overlong '/', encoded surrogate), each with real legacy events; a stray non-UTF-8 file "
                       "inside a real conversation; non-UTF-8 dirs under .jp and a bogus non-UTF-8 run dir "
                       "under .jp/.jp-migrate/runs. Reporting/printing these names must not raise "
                       "UnicodeEncodeError (surrogateescape to a UTF-8 stdout) and reports stay one line. "
                       "Bad-name conversations may be migrated or reported; the control must be migrated. "
                       "expect lists hold str names (os.fsdecode).",
        "expect_migrated": [ctl, "17700000094-stray-bad-file"],
        "expect_untouched": [],
        "commands": [["conversations", "--dry-run", "."], ["conversations", "."], ["check", "."],
                     ["rollback", "."]],
    }
