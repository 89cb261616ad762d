#!/usr/bin/env python3
"""grep_notes: search the workspace's Markdown and text notes for a regular expression.

Uses the shared helpers in `_outcome.py`. JP runs it as
`python3 grep_notes.py '{{tool.arguments.pattern}}' '{{tool.arguments.directory}}'`.
"""

import re
import sys
from pathlib import Path

from _outcome import emit, failure, success

SUFFIXES = (".md", ".txt")
LIMIT = 50


def search(pattern: re.Pattern[str], directory: Path) -> list[str]:
    hits = []
    for path in sorted(p for p in directory.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if pattern.search(line):
                hits.append(f"{path.as_posix()}:{number}: {line.strip()}")
    return hits


def main(argv: list[str]) -> int:
    raw = argv[1] if len(argv) > 1 else ""
    directory = Path(argv[2] if len(argv) > 2 and argv[2] not in ("", "null") else ".")
    try:
        pattern = re.compile(raw)
    except re.error as exc:
        emit(failure(f"invalid pattern {raw!r}", f"re.error: {exc}"))
        return 0
    if not directory.is_dir():
        emit(failure(f"not a directory: {directory}"))
        return 0
    hits = search(pattern, directory)
    if not hits:
        emit(success(f"no matches for {raw!r}"))
    elif len(hits) > LIMIT:
        emit(success("\n".join(hits[:LIMIT]) + f"\n… {len(hits) - LIMIT} more"))
    else:
        emit(success("\n".join(hits)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
