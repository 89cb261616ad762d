#!/usr/bin/env python3
"""Add an entry to the [Unreleased] section of a Keep-a-Changelog file."""
import json
import os
import sys

CATEGORIES = ["Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"]


def question(qid, text, answer_type, default=None, pre_amble=None):
    q = {"id": qid, "text": text, "answer_type": answer_type, "default": default}
    if pre_amble:
        q["pre_amble"] = pre_amble
    return {"type": "needs_input", "question": q}


def done(text):
    return {"type": "success", "content": text}


def problem(text, *trace):
    return {"type": "error", "message": text, "trace": list(trace), "transient": False}


def insert(lines, category, entry):
    start = next((i for i, l in enumerate(lines) if l.startswith("## [Unreleased]")), None)
    if start is None:
        raise LookupError("no [Unreleased] section")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    heading = f"### {category}"
    for i in range(start, end):
        if lines[i].strip() == heading:
            j = i + 1
            while j < end and lines[j].startswith("- "):
                j += 1
            return lines[:j] + [f"- {entry}"] + lines[j:]
    return lines[:end] + [heading, f"- {entry}", ""] + lines[end:]


def run(args, answers):
    path = args.get("file", "data/CHANGELOG.md")
    if not os.path.exists(path):
        return problem(f"{path} not found")
    entry = (args.get("entry") or answers.get("entry") or "").strip()
    if not entry:
        return question("entry", "What changed? (one line)", "Text")
    category = args.get("category") or answers.get("category")
    if category is None:
        return question("category", "Which changelog category?", {"Select": {"options": CATEGORIES}},
                        default="Changed", pre_amble=f"Entry: {entry}")
    if category not in CATEGORIES:
        return problem(f"unknown category {category!r}", "allowed: " + ", ".join(CATEGORIES))
    with open(path) as fh:
        lines = fh.read().splitlines()
    try:
        new = insert(lines, category, entry)
    except LookupError as e:
        return problem(f"cannot add entry to {path}", str(e))
    os.makedirs("scratch", exist_ok=True)
    with open("scratch/CHANGELOG.md", "w") as fh:
        fh.write("\n".join(new) + "\n")
    return done(f"added under {category}: {entry} (scratch/CHANGELOG.md)")


if __name__ == "__main__":
    call = json.loads(sys.argv[1])
    print(json.dumps(run(call["arguments"], call.get("answers") or {})))
