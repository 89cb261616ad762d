#!/usr/bin/env python3
"""Find whitespace problems (tabs, trailing spaces, missing final newline) and optionally fix them."""
import json
import os

import click


def problems(text):
    found = []
    for no, line in enumerate(text.split("\n"), 1):
        if line != line.rstrip(" "):
            found.append((no, "trailing whitespace"))
        if line.startswith("\t"):
            found.append((no, "tab indentation"))
    if text and not text.endswith("\n"):
        found.append((text.count("\n") + 1, "no newline at end of file"))
    return found


def fixed(text):
    lines = [l.rstrip(" ").replace("\t", "    ", 1) if l.startswith("\t") else l.rstrip(" ") for l in text.split("\n")]
    out = "\n".join(lines)
    return out if out.endswith("\n") else out + "\n"


def emit(obj):
    click.echo(json.dumps(obj))


@click.command()
@click.option("--path", required=True, help="file to check")
@click.option("--answers", default="{}", help="JP answers as JSON")
def main(path, answers):
    answers = json.loads(answers) if answers and answers != "null" else {}
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        emit({"type": "error", "message": f"cannot open {path}: {exc.strerror}", "trace": [], "transient": False})
        return

    found = problems(text)
    if not found:
        emit({"type": "success", "content": f"{path}: clean"})
        return

    report = "\n".join(f"{path}:{no}: {what}" for no, what in found)
    if "fix" not in answers:
        emit({"type": "needs_input", "question": {
            "id": "fix", "text": f"Fix {len(found)} whitespace problem(s) in {path}?",
            "pre_amble": report, "answer_type": "Boolean", "default": True}})
        return
    if answers["fix"] is True:
        os.makedirs("scratch/fmt", exist_ok=True)
        target = os.path.join("scratch/fmt", os.path.basename(path))
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(fixed(text))
        emit({"type": "success", "content": f"Fixed {len(found)} problem(s); wrote {target}"})
    else:
        emit({"type": "success", "content": report})


if __name__ == "__main__":
    main()
