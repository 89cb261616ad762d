#!/usr/bin/env python3
"""delete_file: delete a file in the workspace, after asking how and whether to.

The question flow. The first run asks how (`Select`: move to .trash/ or
delete), with the file's first lines as the pre-amble (None for an empty
file); the next run asks for confirmation (`Boolean`, default no). JP re-runs
the tool with each answer in `tool.answers`. JP runs it as
`python3 delete_file.py '{{tool}}'`.
"""

import json
import shutil
import sys
from pathlib import Path
from typing import Any

MODES = ["trash", "delete"]
PREVIEW_LINES = 3


def preview(path: Path) -> str | None:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[:PREVIEW_LINES]
    return "\n".join(lines) if lines else None


def ask_mode(path: Path) -> dict[str, Any]:
    return {
        "type": "needs_input",
        "question": {
            "id": "mode",
            "text": f"How should {path} be removed?",
            "pre_amble": preview(path),
            "answer_type": {"Select": {"options": MODES}},
        },
    }


def ask_confirm(path: Path, mode: str) -> dict[str, Any]:
    return {
        "type": "needs_input",
        "question": {
            "id": "confirm",
            "text": f"Really {mode} {path}?",
            "pre_amble": "This cannot be undone from JP.",
            "answer_type": "Boolean",
            "default": False,
        },
    }


def remove(path: Path, mode: str) -> str:
    if mode == "trash":
        trash = Path(".trash")
        trash.mkdir(exist_ok=True)
        shutil.move(str(path), trash / path.name)
        return f"Moved {path} to {trash / path.name}."
    path.unlink()
    return f"Deleted {path}."


def run(context: dict[str, Any]) -> dict[str, Any]:
    path = Path(context.get("arguments", {}).get("path", ""))
    answers = context.get("answers") or {}
    if not path.is_file():
        return {"type": "error", "message": f"no such file: {path}", "trace": [], "transient": False}
    mode = answers.get("mode")
    if mode not in MODES:
        return ask_mode(path)
    if "confirm" not in answers:
        return ask_confirm(path, mode)
    if answers["confirm"] is not True:
        return {"type": "success", "content": f"Kept {path}."}
    return {"type": "success", "content": remove(path, mode)}


def main(argv: list[str]) -> int:
    context = json.loads(argv[1]) if len(argv) > 1 else {}
    print(json.dumps(run(context)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
