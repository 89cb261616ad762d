#!/usr/bin/env python3
"""Detect services configured to listen on the same port."""
import json
import sys
from collections import defaultdict


def find_conflicts(services):
    by_port = defaultdict(list)
    for svc in services:
        by_port[int(svc["port"])].append(svc["name"])
    return {p: names for p, names in sorted(by_port.items()) if len(names) > 1}


def main(argv):
    args = json.loads(argv[1])["arguments"]
    path = args.get("file", "data/services.json")
    try:
        with open(path) as fh:
            services = json.load(fh)["services"]
    except (OSError, KeyError, ValueError) as exc:
        json.dump({"type": "error", "message": f"could not load services from {path}",
                   "trace": [repr(exc)], "transient": False}, sys.stdout)
        return

    conflicts = find_conflicts(services)
    if conflicts:
        json.dump({
            "type": "error",
            "message": f"{len(conflicts)} port conflict(s) in {path}",
            "trace": [f"{port}: {', '.join(names)}" for port, names in conflicts.items()],
            "transient": False,
        }, sys.stdout)
    else:
        ports = ", ".join(f"{s['name']}:{s['port']}" for s in services)
        json.dump({"type": "success", "content": f"no conflicts ({ports})"}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv)
