"""`check` (and other commands) with standard output closed (`>&-`) or its reader gone
(`| head` that has exited): no traceback; a closed output is one line and exit 2."""

from pathlib import Path

from _common import workspace


def build(root: Path, outside: Path) -> dict:
    workspace(root)
    return {
        "description": __doc__,
        "commands": [
            {"argv": ["check", ".", "--report", "json"], "stdout": "closed", "exit": [2]},
            {"argv": ["check", ".", "--report", "json"], "stdout": "broken", "exit": [1, 2]},
            {"argv": ["schema"], "stdout": "closed", "exit": [2]},
        ],
    }
