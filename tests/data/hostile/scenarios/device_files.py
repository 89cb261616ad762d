"""Device nodes named events.json (needs root / CAP_MKNOD) and links to /dev/zero, /dev/urandom, /dev/stdin."""
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
    notes = []
    a = convs / "17700000060-events-chardev-zero"
    a.mkdir()
    try:
        os.mknod(a / "events.json", 0o644 | stat.S_IFCHR, os.makedev(1, 5))   # like /dev/zero
    except (PermissionError, OSError) as e:
        notes.append(f"mknod char device failed ({e}); events.json replaced by a link to /dev/zero")
        os.symlink("/dev/zero", a / "events.json")
    b = convs / "17700000061-events-blockdev"
    b.mkdir()
    try:
        os.mknod(b / "events.json", 0o644 | stat.S_IFBLK, os.makedev(7, 0))   # like /dev/loop0
    except (PermissionError, OSError) as e:
        notes.append(f"mknod block device failed ({e}); left empty dir")
    for i, target in enumerate(["/dev/zero", "/dev/urandom", "/dev/stdin", "/proc/self/mem", "/dev/null"]):
        d = convs / f"1770000007{i}-events-link-{target.strip('/').replace('/', '-')}"
        d.mkdir()
        os.symlink(target, d / "events.json")
    return {
        "description": "events.json is a character device (1,5 = zero) and a block device (7,0) made with mknod "
                       "(needs root/CAP_MKNOD; falls back as noted), and links to /dev/zero, /dev/urandom "
                       "(endless reads), /dev/stdin (blocks), /proc/self/mem (EIO) and /dev/null. None may be "
                       "read; each reported in one line; no hang, no MemoryError. "
                       + ("; ".join(notes) if notes else "All device nodes created."),
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
