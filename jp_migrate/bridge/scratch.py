"""Throw-away copies of a workspace, for tools that have side effects (verify, check).

The conversation store and VCS data are left out: tools do not run against them.
Symlinks are copied as links, so a link into the workspace leads into the copy;
a relative link that leads out of the workspace (`data -> ../shared`) would
dangle in the copy, so it is made absolute there, leading where it always did.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from jp_migrate.errors import JpMigrateError
from jp_migrate.files.workspace import JP_DIR


def _skipped(directory: str, names: list[str]) -> set[str]:
    if os.path.basename(directory) == JP_DIR:
        return {n for n in names if n == "conversations"}
    return {n for n in names if n in (".git", ".jp-migrate")}


def copy_workspace(root: Path, copy: Path) -> None:
    """Copy `root` to `copy` (a new directory); JpMigrateError naming `root` when it cannot."""
    base = os.path.abspath(root)
    scratch = os.path.abspath(tempfile.gettempdir())  # where every scratch copy is made
    outward: list[tuple[str, str]] = []  # (link in the copy, relative to it; absolute target)

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = _skipped(directory, names)
        for name in names:
            path = os.path.join(directory, name)
            if os.path.abspath(path) == scratch:
                skipped.add(name)  # $TMPDIR inside the workspace: the copies are made there
                continue
            if name in skipped or not os.path.islink(path):
                continue
            target = os.readlink(path)
            if os.path.isabs(target):
                continue
            lexical = os.path.normpath(os.path.join(os.path.abspath(directory), target))
            if os.path.commonpath([lexical, base]) != base:
                skipped.add(name)
                outward.append((os.path.relpath(os.path.abspath(path), base), lexical))
        return skipped

    try:
        shutil.copytree(root, copy, symlinks=True, ignore=ignore)
        for relative, target in outward:
            os.symlink(target, copy / relative)
    except OSError as exc:
        raise JpMigrateError(f"{root}: cannot copy the workspace: {exc}") from None
