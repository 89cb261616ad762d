#!/usr/bin/env python3
"""Add a markdown note. Asks before replacing an existing note of the same title."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _replies import ok, fail, ask, load_call  # noqa: E402

NOTES_DIR = "data/notes"
OUT_DIR = "scratch/notes"


def slug(title):
    s = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return s or None


def main():
    args, answers = load_call()
    title = (args.get("title") or "").strip()
    body = args.get("body") or ""

    name = slug(title)
    if name is None:
        fail("A note needs a title with at least one letter or digit.")
        return
    if len(body) > 4000:
        fail("Note body too long", trace=[f"{len(body)} > 4000 characters"])
        return

    existing = os.path.join(NOTES_DIR, name + ".md")
    mode = "w"
    if os.path.exists(existing):
        if "overwrite" not in answers:
            ask("overwrite", f"A note called '{name}' already exists. Replace it?",
                default=False, pre_amble=f"Existing note: {existing}")
            return
        if not answers["overwrite"]:
            mode = "append"

    os.makedirs(OUT_DIR, exist_ok=True)
    target = os.path.join(OUT_DIR, name + ".md")
    if mode == "append":
        with open(existing, encoding="utf-8") as fh:
            text = fh.read().rstrip("\n") + "\n\n" + body + "\n"
    else:
        text = f"# {title}\n\n{body}\n"
    with open(target, "w", encoding="utf-8") as fh:
        fh.write(text)
    verb = "Appended to" if mode == "append" else "Saved"
    ok(f"{verb} note {target} ({len(text.splitlines())} lines)")


if __name__ == "__main__":
    main()
