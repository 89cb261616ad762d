"""A `[….command]` table with `shell = true` whose argument carries a quote and shell words.
Adapted, the tool must still get the text as one argument and run nothing of it; undone,
the file is byte for byte as before."""

from pathlib import Path

from _common import workspace

CONFIG = """\
[conversation.tools.q]
source = "local"

[conversation.tools.q.command]
program = "python3 echo.py"
args = ["{{tool.arguments}}"]
shell = true
"""
TEXT = "it's; touch PWNED; echo '"


def build(root: Path, outside: Path) -> dict:
    workspace(root, CONFIG)
    args = f'{{"text": "{TEXT}"}}'
    return {
        "description": __doc__,
        "commands": [
            {
                "argv": ["adapt", "--config", ".", "--tool", "q"],
                "exit": [0],
                # run directly by the adapter, no shell line left to quote arguments into
                "file_contains": {".jp/config.toml": "shell = false"},
            },
            {
                "argv": ["bridge", "run", "q", "--args", args],
                "exit": [0],
                "stdout_contains": f"echo: {TEXT}",
            },
            {"argv": ["adapt", "--config", ".", "--tool", "q", "--undo"], "exit": [0]},
        ],
        "absent": ["PWNED"],
        "restored": [".jp/config.toml"],
    }
