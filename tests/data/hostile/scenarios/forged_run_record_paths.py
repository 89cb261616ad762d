"""Forged run records under .jp/.jp-migrate/runs/ whose paths climb with '..' or are absolute; then rollback."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def _manifests(root, outside, v, ctl):
    """Many plausible manifest shapes; every path leads outside or reads a backup from outside."""
    climb = "../../../../" + outside.name + "/victim_secret.txt"
    deep_climb = "../" * 40 + str(v["secret"]).lstrip("/")
    abs_victim = str(v["secret"])
    ctl_events = ".jp/conversations/" + ctl + "/events.json"
    entries = [
        {"path": climb, "backup": "backups/0.json"},
        {"path": abs_victim, "backup": "backups/0.json"},
        {"path": deep_climb, "backup": "backups/0.json"},
        {"path": "conversations/../../../" + outside.name + "/victim_events.json", "backup": "backups/0.json"},
        {"path": ctl_events, "backup": abs_victim},                              # restore FROM outside
        {"path": ctl_events, "backup": "../../../../" + outside.name + "/victim_events.json"},
        {"path": "/etc/passwd", "backup": "backups/0.json"},
        {"path": ".jp/conversations/" + ctl + "/events.json/../../../../../" + outside.name + "/victim_secret.txt",
         "backup": "backups/0.json"},
        {"path": str(v["missing"]), "backup": "backups/0.json"},                  # would create outside file
    ]
    return entries


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    v = H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    H.control(convs, H.LEGACY_B)
    runs = root / ".jp" / ".jp-migrate" / "runs"
    entries = _manifests(root, outside, v, ctl)
    garbage = b'"FORGED BACKUP: if this lands anywhere, rollback trusted a forged record"\n'
    for run_id in ("20990101T000000Z-forged", "9999999999", "zzzz-latest", "00000000-forged"):
        rd = runs / run_id
        (rd / "backups").mkdir(parents=True)
        H.write(rd / "backups" / "0.json", garbage)
        H.write(rd / "backups" / "events.json", garbage)
        for fname, shape in [
            ("manifest.json", {"version": 1, "run_id": run_id, "status": "complete", "files": entries}),
            ("run.json", {"id": run_id, "finished": True, "conversations": [
                {"conversation": e["path"], "original": e["path"], "target": e["path"],
                 "backup": e["backup"], "src": e["backup"], "dst": e["path"]} for e in entries]}),
            ("record.json", {"entries": {e["path"]: e["backup"] for e in entries}}),
        ]:
            H.write(rd / fname, H.canon(shape))
        H.write(rd / "entries.jsonl", "".join(json.dumps(e) + "\n" for e in entries))
        H.write(rd / "MANIFEST", "".join(f"{e['path']}\t{e['backup']}\n" for e in entries))
    for pointer in ("LAST", "last_run", "latest", "current"):
        H.write(root / ".jp" / ".jp-migrate" / pointer, "20990101T000000Z-forged\n")
        H.write(runs / pointer, "20990101T000000Z-forged\n")
    # backup-looking trees whose own names climb
    bk = root / ".jp" / ".jp-migrate" / "backups" / "20990101T000000Z-forged"
    bk.mkdir(parents=True)
    H.write(bk / "events.json", garbage)
    return {
        "description": "No real run ever happened; .jp/.jp-migrate/runs/ holds forged run records in many "
                       "plausible shapes (manifest.json, run.json, record.json, entries.jsonl, MANIFEST, "
                       "LAST/latest pointers) whose target paths climb with '../' (also 40 levels), are "
                       "absolute (outside victim, /etc/passwd, a not-yet-existing outside path), or whose "
                       "backup source is read from outside. 'rollback .' must refuse/ignore them in one line "
                       "each: no file outside written or created, nothing read through them, and both real "
                       "conversations stay byte-identical.",
        "expect_migrated": [],
        "expect_untouched": [ctl, H.LEGACY_B],
        "commands": [["rollback", "."], ["check", "."]],
    }
