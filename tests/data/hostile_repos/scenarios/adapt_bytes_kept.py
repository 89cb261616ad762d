"""A config with a BOM, CRLF line ends, blanks after values and a tool's parameter table
before the tool's own table (valid TOML, out of order). Adapt then undo: every byte back."""

from pathlib import Path

from _common import workspace

CONFIG = (
    "\ufeff# tools\r\n"
    "[conversation.tools.t.parameters.text]\r\n"
    'type = "string"   \r\n'
    "\r\n"
    "[conversation.tools.t]\r\n"
    'source = "local"\t \r\n'
    "command = \"python3 echo.py '{{tool.arguments}}'\"   \r\n"
    "\r\n"
    "[conversation.tools.u.command]\r\n"
    'program = "python3"  # run directly\r\n'
    'args = ["echo.py", "{{tool.arguments}}"]   \r\n'
)


def build(root: Path, outside: Path) -> dict:
    workspace(root, CONFIG)
    return {
        "description": __doc__,
        "commands": [
            {"argv": ["adapt", "--config", ".", "--tool", "t", "--tool", "u"], "exit": [0]},
            {
                "argv": ["adapt", "--config", ".", "--tool", "t", "--tool", "u", "--check"],
                "exit": [0],
            },
            {
                "argv": ["adapt", "--config", ".", "--tool", "t", "--tool", "u", "--undo"],
                "exit": [0],
            },
        ],
        "restored": [".jp/config.toml"],
    }
