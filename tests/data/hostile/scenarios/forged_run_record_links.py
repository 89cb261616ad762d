"""A real migration, then forged run records planted as links; rollback must only restore its own run."""
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
    runs = root / ".jp" / ".jp-migrate" / "runs"
    runs.mkdir(parents=True)
    # a whole run dir that is a link to an outside dir holding a plausible record
    ext = outside / "victim_run"
    (ext / "backups").mkdir(parents=True)
    H.write(ext / "manifest.json", H.canon({"files": [{"path": ".jp/conversations/" + ctl + "/events.json",
                                                       "backup": "backups/events.json"}]}))
    H.write(ext / "backups" / "events.json", b'"outside content must never be restored"\n')
    for run_id in ("99999999999999-link", "zzzz-link"):
        os.symlink(ext, runs / run_id)
    # a run dir whose backup file is a link to an outside file
    rd = runs / "99999999999998-backup-link"
    (rd / "backups").mkdir(parents=True)
    H.write(rd / "manifest.json", H.canon({"files": [{"path": ".jp/conversations/" + ctl + "/events.json",
                                                      "backup": "backups/events.json"}]}))
    os.symlink(v["events"], rd / "backups" / "events.json")
    os.symlink(v["secret"], rd / "backups" / "0.json")
    return {
        "description": "Forged run records planted before the tool runs: run dirs that are symlinks to an "
                       "outside dir containing a manifest and a 'backup', and a real run dir whose backup "
                       "files are links to outside files. Commands: rollback (nothing of ours to roll back: "
                       "must not restore the forged ones), then a real migration, then rollback (must "
                       "restore exactly the tool's own backup, never the forged ones even if they sort "
                       "later/newer). The control is migrated by the 'conversations' step and must end "
                       "byte-identical to the real source after the final rollback (expect_restored).",
        "expect_migrated": [ctl],
        "expect_untouched": [],
        "expect_restored": [ctl],
        "commands": [["rollback", "."], ["conversations", "."], ["check", "."], ["rollback", "."]],
    }
