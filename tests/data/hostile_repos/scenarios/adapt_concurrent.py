"""Eight `adapt --config` runs at once, each adapting another tool of the same file, then
the same again: no run that says it adapted a tool may have its marker lost to another's
write, and nothing is wrapped twice; undo gives back every byte."""

from pathlib import Path

from _common import tool_table, workspace

TOOLS = [f"t{i}" for i in range(8)]


def build(root: Path, outside: Path) -> dict:
    workspace(root, "\n".join(tool_table(t) for t in TOOLS))
    each = [["adapt", "--config", ".", "--tool", t] for t in TOOLS]
    every = ["adapt", "--config", "."] + [w for t in TOOLS for w in ("--tool", t)]
    return {
        "description": __doc__,
        "commands": [
            {"concurrent": each},
            {"concurrent": [every, every]},
            {"argv": every, "exit": [0]},
            {"argv": [*every, "--check"], "exit": [0]},
            {"argv": [*every, "--undo"], "exit": [0]},
        ],
        "restored": [".jp/config.toml"],
    }
