"""Tool sources that are links: to a file outside, to a file inside, a directory link to
outside tools. `tools .` must write through none of them (the outside files stay legacy)."""

from pathlib import Path

from _common import write

LEGACY = 'import json\nprint(json.dumps({"type": "success", "content": "ok"}))\n'


def build(root: Path, outside: Path) -> dict:
    write(outside / "secret_tool.py", LEGACY)
    write(outside / "lib" / "lib_tool.py", LEGACY)
    write(root / "tools" / "own.py", LEGACY)
    write(root / "real.py", LEGACY)
    (root / "tools" / "linked.py").symlink_to(outside / "secret_tool.py")
    (root / "tools" / "inside.py").symlink_to(root / "real.py")
    (root / "tools" / "lib").symlink_to(outside / "lib", target_is_directory=True)
    return {
        "description": __doc__,
        "commands": [
            {"argv": ["tools", "tools"], "exit": [2]},
            {"argv": ["tools", "tools", "--check"], "exit": [2]},
        ],
        "unchanged": ["real.py"],
        "changed": ["tools/own.py"],
    }
