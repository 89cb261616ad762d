#!/usr/bin/env python3
"""Show the biggest files/directories under a path (like `du -s * | sort -n`)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _replies import ok, fail, load_call  # noqa: E402


def human(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def size_of(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(dirpath, f))
    return total


args, _ = load_call()
root = args.get("path", ".")
top = int(args.get("top", 5))

if top < 1:
    fail(f"top must be >= 1 (got {top})")
elif not os.path.exists(root):
    fail(f"{root}: no such file or directory", trace=[f"cwd: {os.path.basename(os.getcwd())}"])
elif os.path.isfile(root):
    ok(f"{human(size_of(root))}\t{root}")
else:
    entries = sorted(((size_of(os.path.join(root, e)), e) for e in os.listdir(root)), key=lambda t: (-t[0], t[1]))
    lines = [f"{human(s)}\t{name}" for s, name in entries[:top]]
    total = sum(s for s, _ in entries)
    ok("\n".join(lines + [f"{human(total)}\ttotal ({len(entries)} entries)"]))
