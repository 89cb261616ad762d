"""Links planted where `adapt --config` puts its temporaries: a dangling one at a git hook's
place, one at an existing start-up file. The configs are 0755 (a hook must not be born
executable). A correct tool refuses, writes nothing outside, leaves the configs alone."""

from pathlib import Path

from _common import tool_table, workspace, write


def build(root: Path, outside: Path) -> dict:
    workspace(root, tool_table("t"))
    (root / ".jp" / "config.toml").chmod(0o755)
    write(root / ".jp" / "mcp" / "tools" / "u.toml", tool_table("u"), 0o755)
    write(outside / "bashrc", "# the user's shell start-up\n")
    (root / ".jp" / ".config.toml.jp-migrate.partial").symlink_to(outside / "pre-commit")
    (root / ".jp" / "mcp" / "tools" / ".u.toml.jp-migrate.partial").symlink_to(outside / "bashrc")
    return {
        "description": __doc__,
        "commands": [
            {"argv": ["adapt", "--config", ".", "--tool", "t"], "exit": [2]},
            {"argv": ["adapt", "--config", ".", "--tool", "u"], "exit": [2]},
            {"argv": ["adapt", "--config", ".", "--tool", "t", "--tool", "u", "--undo"]},
        ],
        "unchanged": [".jp/config.toml", ".jp/mcp/tools/u.toml"],
    }
