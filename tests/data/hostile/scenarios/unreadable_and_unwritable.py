"""chmod 000 events.json / conversation dirs, and read-only (0555) conversation dirs."""
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
    a = convs / "17700000130-events-mode-000"
    H.copy_conv(H.LEGACY_B, a)
    os.chmod(a / "events.json", 0)
    b = convs / "17700000131-dir-mode-000"
    H.copy_conv(H.LEGACY_B, b)
    os.chmod(b, 0)
    c = convs / "17700000132-dir-mode-555"
    H.copy_conv(H.LEGACY_A, c)
    os.chmod(c, 0o555)
    d = convs / "17700000133-events-mode-444"
    H.copy_conv(H.LEGACY_A, d)
    os.chmod(d / "events.json", 0o444)
    e = convs / "17700000134-dir-mode-111"
    H.copy_conv(H.LEGACY_B, e)
    os.chmod(e, 0o111)   # traversable, not listable
    root_note = ("built as root: chmod does NOT stop root, so the tool may legitimately read/write these"
                 if os.geteuid() == 0 else "built as non-root")
    return {
        "description": "events.json mode 000, conversation dir mode 000, dir mode 0555 (no temp file can be "
                       "created), events.json mode 0444, dir mode 0111. As non-root each must be reported in "
                       "one line (EACCES, no traceback) and the rest migrated; a 0444 file in a writable dir "
                       "may be replaced by rename or reported. Modes must be preserved/restored by rollback. "
                       "NOTE: " + root_note + ". Cleanup needs chmod -R u+rwx first.",
        "expect_migrated": [ctl],
        "expect_untouched": [],
    }
