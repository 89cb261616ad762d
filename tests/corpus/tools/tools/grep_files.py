#!/usr/bin/env python3
"""Search files under a directory for a regular expression."""
import argparse
import json
import os
import re
import sys

LIMIT = 10


def walk(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".lock", ".pyc")):
                continue
            yield os.path.join(dirpath, name)


def search(rx, root):
    hits = []
    for path in walk(root):
        try:
            with open(path, encoding="utf-8") as fh:
                for no, line in enumerate(fh, 1):
                    if rx.search(line):
                        hits.append(f"{path}:{no}: {line.rstrip()}")
        except (UnicodeDecodeError, PermissionError):
            continue
    return hits


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--pattern", required=True)
    p.add_argument("--path", default="data")
    p.add_argument("--answers", default="{}")
    ns = p.parse_args()
    answers = json.loads(ns.answers) if ns.answers not in ("", "null") else {}

    try:
        rx = re.compile(ns.pattern)
    except re.error as e:
        print(json.dumps({"type": "error", "message": f"Invalid regex {ns.pattern!r}: {e}", "trace": [], "transient": False}))
        return 0
    if not os.path.isdir(ns.path):
        print(json.dumps({"type": "error", "message": f"Not a directory: {ns.path}", "trace": [], "transient": False}))
        return 0

    hits = search(rx, ns.path)
    if not hits:
        print(json.dumps({"type": "success", "content": f"No matches for /{ns.pattern}/ in {ns.path}."}))
        return 0

    if len(hits) > LIMIT:
        choice = answers.get("too_many")
        if choice is None:
            question = {
                "id": "too_many",
                "text": f"{len(hits)} matches found. What should I return?",
                "answer_type": {"Select": {"options": ["first 10", "all", "files only"]}},
                "default": "first 10",
            }
            print(json.dumps({"type": "needs_input", "question": question}))
            return 0
        if choice == "first 10":
            hits = hits[:LIMIT] + [f"... {len(hits) - LIMIT} more"]
        elif choice == "files only":
            hits = sorted({h.split(":", 1)[0] for h in hits})

    print(json.dumps({"type": "success", "content": "\n".join(hits)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
