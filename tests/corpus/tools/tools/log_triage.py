#!/usr/bin/env python3
"""Triage a log file: count levels and show the distinct errors."""
import collections
import json
import os
import re
import sys

LINE = re.compile(r"^\S+ \S+ (?P<level>[A-Z]+)\s+(?P<msg>.*)$")


def triage(path, min_level):
    counts = collections.Counter()
    errors = collections.OrderedDict()
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            m = LINE.match(raw.rstrip("\n"))
            if not m:
                continue
            counts[m["level"]] += 1
            if m["level"] in ("ERROR", "WARN") and (min_level == "WARN" or m["level"] == "ERROR"):
                errors[m["msg"]] = errors.get(m["msg"], 0) + 1
    return counts, errors


def main():
    a = json.loads(sys.argv[1])["arguments"]
    path = a["path"]
    level = a.get("min_level", "ERROR").upper()

    if os.path.exists(path + ".lock"):
        # logrotate/the writer holds it; trying again shortly usually works
        print(json.dumps({"type": "error", "message": f"{path} is being rotated, try again",
                          "trace": [f"lock file present: {path}.lock"], "transient": True}))
        return
    if level not in ("ERROR", "WARN"):
        print(json.dumps({"type": "error", "message": f"min_level must be ERROR or WARN, got {level}",
                          "trace": [], "transient": False}))
        return
    try:
        counts, errors = triage(path, level)
    except OSError as exc:
        print(json.dumps({"type": "error", "message": str(exc), "trace": [path], "transient": False}))
        return

    summary = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
    if errors:
        kind, key = "success", "content"
        text = summary + "\n" + "\n".join(f"{n}x {msg}" for msg, n in errors.items())
    else:
        kind, key = "success", "content"
        text = summary + f"\nno {level} entries"
    print(json.dumps({"type": kind, key: text}))


main()
