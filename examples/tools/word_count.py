#!/usr/bin/env python3
"""word_count: count the lines, words and characters of a file in the workspace.

A plain script. JP runs it as `python3 word_count.py '{{tool}}'` from the
workspace root (.jp/mcp/tools/word_count.toml): argv[1] is the JSON object
{"name", "arguments", "answers", "options"}. It prints one legacy Outcome.
"""

import json
import sys
from pathlib import Path


def count(text: str) -> str:
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return f"{lines} lines, {len(text.split())} words, {len(text)} characters"


def main(argv: list[str]) -> int:
    context = json.loads(argv[1]) if len(argv) > 1 else {}
    path = Path(context.get("arguments", {}).get("path", ""))
    if not path.is_file():
        # A permanent error: JP shows the model the whole Outcome.
        print(json.dumps({"type": "error", "message": f"no such file: {path}", "trace": [], "transient": False}))
        return 0
    text = path.read_text(encoding="utf-8")
    print(json.dumps({"type": "success", "content": f"{path}: {count(text)}"}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
