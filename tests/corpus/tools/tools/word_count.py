#!/usr/bin/env python3
"""Count lines, words and characters of a file (like `wc`)."""
import json
import os
import sys


def count(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return lines, len(text.split()), len(text)


def main():
    call = json.loads(sys.argv[1])
    path = call["arguments"].get("path", "")

    if not path:
        sys.stdout.write(json.dumps({"type": "error", "message": "No path given.", "trace": [], "transient": False}) + "\n")
        return
    if os.path.isdir(path):
        sys.stdout.write(json.dumps({
            "type": "error",
            "message": f"{path} is a directory, not a file.",
            "trace": [],
            "transient": False,
        }) + "\n")
        return
    try:
        lines, words, chars = count(path)
    except FileNotFoundError as exc:
        sys.stdout.write(json.dumps({
            "type": "error",
            "message": f"File not found: {path}",
            "trace": [exc.strerror or "ENOENT"],
            "transient": False,
        }) + "\n")
        return

    if chars == 0:
        content = f"{path} is empty."
    else:
        content = f"{path}: {lines} lines, {words} words, {chars} characters"
    sys.stdout.write(json.dumps({"type": "success", "content": content}) + "\n")


if __name__ == "__main__":
    main()
