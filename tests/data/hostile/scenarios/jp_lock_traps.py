"""JP's own lock files '.jp/locks/<id>.lock' planted as links to outside, FIFOs and directories."""
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
    locks = root / ".jp" / "locks"
    locks.mkdir()
    names = ["17700000210-lock-link", "17700000211-lock-dangling", "17700000212-lock-fifo",
             "17700000213-lock-dir", "17700000214-lock-socket"]
    for n in names:
        H.copy_conv(H.LEGACY_B, convs / n)
    ids = [n.split("-")[0] for n in names]
    os.symlink(v["secret"], locks / (ids[0] + ".lock"))                  # O_TRUNC/O_WRONLY would clobber
    os.symlink(v["missing"], locks / (ids[1] + ".lock"))                 # O_CREAT would create outside
    H.mkfifo(locks / (ids[2] + ".lock"))                                 # open() blocks
    (locks / (ids[3] + ".lock")).mkdir()                                 # EISDIR
    H.mksock(locks / (ids[4] + ".lock"))                                 # ENXIO
    # same traps under the full dir name, in case a tool keys locks by dir name
    os.symlink(v["secret"], locks / (names[0] + ".lock"))
    return {
        "description": "JP's lock files (.jp/locks/<id>.lock) are planted for five real legacy conversations "
                       "as: a link to an outside secret, a dangling link into outside, a FIFO, a directory and "
                       "a socket. A tool that flocks JP's locks must open them safely (O_NOFOLLOW, no O_TRUNC, "
                       "non-blocking, regular files only) or skip/report those conversations. No hang, no "
                       "outside writes or created files; the control (no lock entry) is migrated.",
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
