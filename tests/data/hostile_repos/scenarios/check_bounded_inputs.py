"""`check` configs pointing its reads at what never ends or lies outside: cases from
/dev/zero, from a link to it, from a FIFO; paths, store-paths, tool-paths and rules at
`/`, at `..`, through a link to `/`; a FIFO named like a tool source. Each one line and
exit 2, none hangs (the harness has a timeout and a memory limit)."""

import os
from pathlib import Path

from _common import workspace, write


def build(root: Path, outside: Path) -> dict:
    workspace(root)
    (root / "to-root").symlink_to("/", target_is_directory=True)
    (root / "zero.jsonl").symlink_to("/dev/zero")
    os.mkfifo(root / "cases.jsonl")
    configs = {
        "devzero.toml": 'cases = "/dev/zero"\nstore = false\ntools = false\n',
        "zerolink.toml": 'cases = "zero.jsonl"\nstore = false\ntools = false\n',
        "fifo.toml": 'cases = "cases.jsonl"\nstore = false\ntools = false\n',
        "root-paths.toml": 'paths = ["/"]\n',
        "up-paths.toml": 'paths = [".."]\n',
        "link-paths.toml": 'store-paths = ["to-root"]\n',
        "tool-paths.toml": 'tool-paths = ["to-root/usr"]\nstore = false\n',
        "rules.toml": 'rules = ["/"]\n',
    }
    for name, text in configs.items():
        write(root / name, text)
    write(root / "tools" / "ok.py", "print('hello')\n")
    os.mkfifo(root / "tools" / "pipe.py")
    return {
        "description": __doc__,
        "commands": [
            *({"argv": ["check", ".", "--config", name], "exit": [2]} for name in configs),
            {
                "argv": ["check", "tools", "--no-store"],
                "exit": [2],
                "stderr_contains": "pipe.py: not a regular file",
            },
        ],
    }
