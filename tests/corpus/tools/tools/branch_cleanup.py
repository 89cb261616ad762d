#!/usr/bin/env python3
"""Plan deletion of merged git branches (from a saved `git branch` listing).

Never runs git itself: on confirmation it writes scratch/branch_cleanup.sh.
"""
import json
import os
import sys

PROTECTED = {"main", "master", "develop"}


def read_branches(path):
    branches = []
    with open(path) as fh:
        for line in fh:
            parts = line.replace("*", " ").split()
            if len(parts) >= 2:
                branches.append((parts[0], parts[1]))
    return branches


call = json.loads(sys.argv[1])
args = call["arguments"]
answers = call.get("answers") or {}
listing = args.get("listing", "data/git/branches.txt")
mode = args.get("mode", "merged")

out = {}
try:
    branches = read_branches(listing)
except OSError as exc:
    out["type"] = "error"
    out["message"] = f"cannot read branch listing: {exc.strerror}"
    out["trace"] = [listing]
    out["transient"] = False
else:
    match mode:
        case "merged":
            doomed = [b for b, state in branches if state == "merged" and b not in PROTECTED]
        case "all":
            doomed = [b for b, state in branches if state != "protected" and b not in PROTECTED]
        case _:
            doomed = None

    if doomed is None:
        out["type"] = "error"
        out["message"] = f"mode must be 'merged' or 'all', not {mode!r}"
        out["trace"] = []
        out["transient"] = False
    elif not doomed:
        out["type"] = "success"
        out["content"] = "No branches to clean up."
    elif "confirm" not in answers:
        out["type"] = "needs_input"
        out["question"] = {
            "id": "confirm",
            "text": f"Delete {len(doomed)} branch(es)?",
            "pre_amble": "\n".join("  " + b for b in doomed),
            "answer_type": "Boolean",
            "default": False,
        }
    elif answers["confirm"]:
        os.makedirs("scratch", exist_ok=True)
        with open("scratch/branch_cleanup.sh", "w") as fh:
            fh.write("#!/bin/sh\nset -e\n" + "".join(f"git branch -d {b}\n" for b in doomed))
        out["type"] = "success"
        out["content"] = f"Wrote scratch/branch_cleanup.sh deleting {len(doomed)} branch(es)."
    else:
        out["type"] = "success"
        out["content"] = "Cancelled; no branches deleted."

print(json.dumps(out, indent=2))
