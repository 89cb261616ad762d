"""A repository's `check` config sends its reports out of the repository (`..`, absolute),
through a planted link (the file, or a directory on the way), and into a FIFO that no one
reads. Nothing outside is written, nothing hangs, each is one line and exit 2."""

import os
from pathlib import Path

from _common import workspace, write


def build(root: Path, outside: Path) -> dict:
    workspace(root)
    write(outside / "victim.txt", "the user's own file\n")
    (outside / "reports").mkdir()
    configs = {
        "up.toml": 'report = ["markdown=../outside/victim.txt"]\n',
        "absolute.toml": f'report = ["json={outside / "abs.json"}"]\n',
        "link.toml": 'report = ["markdown=report.md"]\n',
        "dirlink.toml": 'report = ["sarif=out/check.sarif"]\n',
        "fifo.toml": 'report = ["junit=pipe.xml"]\n',
    }
    for name, text in configs.items():
        write(root / name, "tools = false\n" + text)
    (root / "report.md").symlink_to(outside / "victim.txt")
    (root / "out").symlink_to(outside / "reports", target_is_directory=True)
    os.mkfifo(root / "pipe.xml")
    return {
        "description": __doc__,
        "commands": [{"argv": ["check", ".", "--config", name], "exit": [2]} for name in configs],
        "unchanged": ["report.md"],
    }
