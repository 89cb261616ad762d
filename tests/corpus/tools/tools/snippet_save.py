#!/usr/bin/env python3
"""Save a code snippet to the snippet library (scratch/snippets)."""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import _replies as r  # noqa: E402

LANGS = {"python": "py", "bash": "sh", "sql": "sql", "rust": "rs"}


def main():
    args, answers = r.load_call()
    code = args.get("code", "")
    lang = args.get("language", "python")
    if not code.strip():
        r.fail("refusing to save an empty snippet")
        return
    if lang not in LANGS:
        r.fail(f"unsupported language: {lang}", trace=[f"supported: {', '.join(sorted(LANGS))}"])
        return

    if "tags" not in answers:
        r.ask("tags", "Tags for this snippet (comma separated, empty for none)?", kind="Text", default="")
        return
    tags = sorted({t.strip().lower() for t in str(answers["tags"]).split(",") if t.strip()})

    digest = hashlib.sha1(code.encode()).hexdigest()[:8]
    name = f"{digest}.{LANGS[lang]}"
    os.makedirs("scratch/snippets", exist_ok=True)
    with open(os.path.join("scratch/snippets", name), "w") as fh:
        fh.write(code)
    with open(os.path.join("scratch/snippets", name + ".json"), "w") as fh:
        json.dump({"language": lang, "tags": tags}, fh)
    r.ok(f"saved snippet {name}" + (f" tagged {', '.join(tags)}" if tags else " (untagged)"))


if __name__ == "__main__":
    main()
