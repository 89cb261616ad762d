#!/usr/bin/env python3
"""Generate a table of contents for a markdown file."""
import json
import re
from pathlib import Path

import typer

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*$")


def anchor(title: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", title.lower()).strip()
    return re.sub(r"\s", "-", slug)


def toc(text: str, max_depth: int) -> list[str]:
    lines, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m and 1 < len(m.group(1)) <= max_depth:
            depth = len(m.group(1)) - 2
            lines.append(f"{'  ' * depth}- [{m.group(2)}](#{anchor(m.group(2))})")
    return lines


def main(path: Path, depth: int = typer.Option(3)) -> None:
    if not 2 <= depth <= 6:
        print(json.dumps({"type": "error", "message": f"depth must be 2..6, got {depth}", "trace": [], "transient": False}))
        return
    if not path.is_file():
        print(json.dumps({"type": "error", "message": f"{path} is not a file", "trace": [], "transient": False}))
        return
    if path.suffix.lower() not in (".md", ".markdown"):
        print(json.dumps({"type": "error", "message": f"{path.name} does not look like markdown",
                          "trace": [f"suffix {path.suffix or '(none)'}"], "transient": False}))
        return
    entries = toc(path.read_text(encoding="utf-8"), depth)
    content = "\n".join(entries) if entries else f"{path} has no sub-headings"
    print(json.dumps({"type": "success", "content": content}))


if __name__ == "__main__":
    typer.run(main)
