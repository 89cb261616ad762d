#!/usr/bin/env python3
"""List TODO / FIXME / XXX comments in a source tree."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _replies import ask, fail, load_call, ok  # noqa: E402

TAG = re.compile(r"#\s*(TODO|FIXME|XXX)(\([^)]*\))?:?\s*(.*)")


def scan(root):
    found = []
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as fh:
                for no, line in enumerate(fh, 1):
                    m = TAG.search(line)
                    if m:
                        found.append((m.group(1), path, no, m.group(3).strip()))
    return found


def main():
    args, answers = load_call()
    root = args.get("root", "data/src")
    if not os.path.isdir(root):
        return fail(f"no such directory: {root}")
    items = scan(root)
    if not items:
        return ok(f"No TODO/FIXME comments under {root}.")

    group = args.get("group_by") or answers.get("group_by")
    if group is None and len(items) > 2:
        return ask("group_by", f"Found {len(items)} comments. Group them how?", kind="Select",
                   options=["file", "tag", "none"], default="file")
    if group not in (None, "file", "tag", "none"):
        return fail(f"cannot group by {group!r}", trace=["choose file, tag or none"])

    if group in ("file", "tag"):
        key = 1 if group == "file" else 0
        lines, last = [], None
        for item in sorted(items, key=lambda i: (i[key], i[1], i[2])):
            if item[key] != last:
                lines.append(f"{item[key]}:")
                last = item[key]
            lines.append(f"  {item[1]}:{item[2]} {item[0]} {item[3]}")
        return ok("\n".join(lines))
    return ok("\n".join(f"{p}:{n}: {t} {txt}" for t, p, n, txt in items))


main()
