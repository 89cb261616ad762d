"""`conversations` run in a subdirectory of a workspace finds the workspace upward, as git
finds `.git`, migrates it and rolls it back."""

import json
from pathlib import Path

from _common import write

EVENTS = [
    {
        "timestamp": "2026-01-01 10:00:00.0",
        "type": "tool_call_request",
        "id": "c1",
        "name": "t",
        "arguments": {},
    },
    {
        "timestamp": "2026-01-01 10:00:01.0",
        "type": "tool_call_response",
        "id": "c1",
        "content": "ok",
        "is_error": False,
    },
]


def build(root: Path, outside: Path) -> dict:
    conversation = root / ".jp" / "conversations" / "17000000001-c"
    write(conversation / "metadata.json", '{\n  "title": "t"\n}\n')
    write(conversation / "events.json", json.dumps(EVENTS, indent=2) + "\n")
    (root / "src" / "deep").mkdir(parents=True)
    return {
        "description": __doc__,
        "commands": [
            {"argv": ["conversations"], "cwd": "src/deep", "exit": [0]},
            {"argv": ["conversations", "--check"], "cwd": "src", "exit": [0]},
            {"argv": ["rollback"], "cwd": "src/deep", "exit": [0]},
        ],
        "restored": [".jp/conversations/17000000001-c/events.json"],
    }
