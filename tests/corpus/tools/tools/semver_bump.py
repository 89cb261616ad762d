#!/usr/bin/env python3
"""Compute the next version number from a VERSION file."""
import json
import re
import sys

SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$")


def ask(qid, text, answer_type, default=None):
    return {"type": "needs_input",
            "question": {"id": qid, "text": text, "answer_type": answer_type, "default": default}}


def error(msg, *trace):
    return {"type": "error", "message": msg, "trace": list(trace), "transient": False}


def bump(version, kind):
    major, minor, patch = version
    if kind == "major":
        return major + 1, 0, 0
    if kind == "minor":
        return major, minor + 1, 0
    return major, minor, patch + 1


def run(args, answers):
    path = args.get("file", "data/VERSION")
    try:
        raw = open(path).read().strip()
    except FileNotFoundError:
        return error(f"{path} not found")
    m = SEMVER.match(raw)
    if not m:
        return error(f"{raw!r} is not a semantic version", f"file: {path}")
    current = tuple(int(x) for x in m.groups()[:3])
    pre = m.group(4)

    if pre:
        if "release_pre" not in answers:
            return ask("release_pre", f"{raw} is a pre-release. Release {'.'.join(map(str, current))} as-is?",
                       "Boolean", default=True)
        if answers["release_pre"]:
            return {"type": "success", "content": f"{raw} -> {'.'.join(map(str, current))}"}

    kind = args.get("kind") or answers.get("kind")
    if kind is None:
        return ask("kind", f"Current version is {raw}. Which part should be bumped?",
                   {"Select": {"options": ["major", "minor", "patch"]}}, default="patch")
    if kind not in ("major", "minor", "patch"):
        return error(f"unknown bump kind {kind!r}")
    return {"type": "success", "content": f"{raw} -> {'.'.join(map(str, bump(current, kind)))}"}


if __name__ == "__main__":
    call = json.loads(sys.argv[1])
    print(json.dumps(run(call["arguments"], call.get("answers") or {})))
