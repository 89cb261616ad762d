#!/usr/bin/env python3
"""Report (and stage fixes for) Python files missing an SPDX license header."""
import json
import os
import sys

import click

SPDX = "SPDX-License-Identifier:"


def missing_headers(root):
    bad = []
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    head = "".join(fh.readline() for _ in range(3))
                if SPDX not in head:
                    bad.append(path)
    return bad


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")


@click.command()
@click.argument("call_json")
def cli(call_json):
    call = json.loads(call_json)
    args, answers = call["arguments"], call.get("answers") or {}
    root = args.get("root", "data/src")
    license_id = args.get("license", "MIT")

    if not os.path.isdir(root):
        say({"type": "error", "message": f"{root} is not a directory", "trace": [], "transient": False})
        return
    bad = missing_headers(root)
    if not bad:
        say({"type": "success", "content": f"all Python files under {root} have a license header"})
        return
    if not args.get("fix"):
        say({"type": "success", "content": "missing header:\n" + "\n".join(bad)})
        return

    holder = (answers.get("holder") or "").strip()
    if not holder:
        say({"type": "needs_input", "question": {
            "id": "holder",
            "text": "Who is the copyright holder for the new headers?",
            "pre_amble": f"{len(bad)} file(s) will get a {license_id} header.",
            "answer_type": "Text",
            "default": None,
        }})
        return
    staged = os.path.join("scratch", "license")
    for path in bad:
        dest = os.path.join(staged, os.path.relpath(path, root))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(path, encoding="utf-8") as src, open(dest, "w", encoding="utf-8") as out:
            out.write(f"# Copyright (c) {holder}\n# {SPDX} {license_id}\n" + src.read())
    say({"type": "success", "content": f"staged {len(bad)} file(s) under {staged} with holder '{holder}'"})


if __name__ == "__main__":
    cli()
