"""`extends` leading out of the workspace, by `..` and by an absolute path, to files that
define the tools asked for; `.jp/mcp/tools` a link to a directory outside; the config
itself a link outside. Nothing outside may be edited."""

from pathlib import Path

from _common import tool_table, write


def build(root: Path, outside: Path) -> dict:
    write(outside / "shared" / "one.toml", tool_table("one"))
    write(outside / "abs.toml", tool_table("two"))
    write(outside / "tools" / "three.toml", tool_table("three"))
    write(outside / "linked-config.toml", tool_table("four"))
    write(
        root / ".jp" / "config.toml",
        f'extends = ["../../outside/shared/*.toml", "{outside / "abs.toml"}"]\n',
    )
    (root / ".jp" / "mcp").mkdir(parents=True)
    (root / ".jp" / "mcp" / "tools").symlink_to(outside / "tools", target_is_directory=True)
    other = root / "other"
    (other / ".jp").mkdir(parents=True)
    (other / ".jp" / "config.toml").symlink_to(outside / "linked-config.toml")
    return {
        "description": __doc__,
        "commands": [
            {"argv": ["adapt", "--config", ".", "--tool", "one"], "exit": [2]},
            {"argv": ["adapt", "--config", ".", "--tool", "two"], "exit": [2]},
            {"argv": ["adapt", "--config", ".", "--tool", "three"], "exit": [2]},
            {"argv": ["adapt", "--config", "other", "--tool", "four"], "exit": [2]},
        ],
        "unchanged": [".jp/config.toml"],
    }
