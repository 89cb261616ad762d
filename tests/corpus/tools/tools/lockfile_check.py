#!/usr/bin/env python3
"""Check that requirements.lock agrees with requirements.txt."""
import json
import os
import re
import sys

SPEC = re.compile(r"^([A-Za-z0-9_.-]+)\s*(==\s*([^\s;]+))?")


def read(path):
    out = {}
    with open(path) as fh:
        for line in fh:
            m = SPEC.match(line.strip())
            if m:
                out[m.group(1).lower()] = m.group(3)
    return out


def verdict(problems, warnings):
    """Pick the outcome kind and its payload in one place."""
    if problems:
        return "error", {"message": f"lock file is out of date ({len(problems)} problem(s))",
                         "trace": problems + warnings, "transient": False}
    text = "lock file matches requirements"
    if warnings:
        text += "\n" + "\n".join(warnings)
    return "success", {"content": text}


def main():
    args = json.loads(sys.argv[1])["arguments"]
    d = args.get("dir", "data/lock")
    req, lock = os.path.join(d, "requirements.txt"), os.path.join(d, "requirements.lock")

    if os.path.exists(lock + ".tmp"):
        print(json.dumps({"type": "error", "message": "lock file is being regenerated",
                          "trace": [f"found {lock}.tmp", "wait for `pip-compile` to finish"], "transient": True}))
        return
    if not os.path.exists(req) or not os.path.exists(lock):
        print(json.dumps({"type": "error", "message": f"need both requirements.txt and requirements.lock in {d}",
                          "trace": [], "transient": False}))
        return

    wanted, locked = read(req), read(lock)
    problems = [f"{n} is required but not locked" for n in sorted(wanted) if n not in locked]
    problems += [f"{n} pinned to {v} but locked at {locked[n]}" for n, v in sorted(wanted.items())
                 if v and n in locked and locked[n] != v]
    warnings = [f"note: {n} only in lock (transitive?)" for n in sorted(locked) if n not in wanted]

    kind, payload = verdict(problems, warnings)
    print(json.dumps({"type": kind, **payload}))


main()
