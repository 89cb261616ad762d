"""An empty conversations dir; every command in a row."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    H.workspace(root)
    return {
        "description": "A workspace whose .jp/conversations exists but is empty. Every command (dry-run, "
                       "check, migrate, check, rollback twice) must succeed or say 'nothing to do' in a "
                       "line, without traceback, and must not create anything inside .jp/conversations.",
        "expect_migrated": [],
        "expect_untouched": [],
        "commands": [["conversations", "--dry-run", "."], ["conversations", "--check", "."],
                     ["conversations", "."], ["check", "."], ["rollback", "."], ["rollback", "."]],
    }
