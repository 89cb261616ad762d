"""Where a running `jp` keeps a conversation's lock: JP's user-local workspace storage.

A workspace's `jp` has two storage roots: the workspace's `.jp/` and a user-local
directory, `<data>/jp/workspace/<name>-<id>/` (`jp_workspace::user_data_dir`,
the `directories` crate's `ProjectDirs::from("", "", "jp").data_local_dir()`:
`$XDG_DATA_HOME/jp` or `~/.local/share/jp` on Linux, `~/Library/Application
Support/jp` on macOS). `<id>` is the workspace id, the last line of `.jp/.id`.

`jp_storage::Storage::lock_file_path` puts a conversation's lock in the
user-local `locks/` when user storage is configured, and looks there first; the
storage root's own `locks/` is its fallback. So for a workspace's conversations
(whichever root holds them) both `locks/` directories count: the user-local
one first, as JP prefers it. This module only finds the directories; `lock`
probes and holds the locks in them.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from jp_migrate.files.workspace import JP_DIR, workspace_id

APPLICATION = "jp"
WORKSPACES = "workspace"  # `<data>/jp/workspace/`
STORAGE_DIR = JP_DIR  # JP's default workspace storage directory name
ROOTS = "roots"  # `<user dir>/roots/<key>.json`: {"path": <checkout root>, ...}
LEGACY_LINK = "storage"  # older JP: `<user dir>/storage` → the workspace's `.jp/`

_ID = re.compile(r"[0-9a-z]{5}")  # jp_workspace::Id: 5 characters of 0-9a-z (a directory's suffix)


def data_dir() -> Path | None:
    """`<data-local dir>/jp`, as JP computes it; None without a home directory."""
    home = os.environ.get("HOME") or None
    if sys.platform == "darwin":
        return Path(home, "Library", "Application Support", APPLICATION) if home else None
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if os.path.isabs(xdg):  # the XDG spec ignores a relative value, as `directories` does
        return Path(xdg, APPLICATION)
    return Path(home, ".local", "share", APPLICATION) if home else None


def _named_for(name: str, workspace: str) -> bool:
    """A user-local directory name is `<id>` or `<slug>-<id>` (the id is always the suffix)."""
    return name == workspace or name.endswith(f"-{workspace}")


def user_dirs(storage: Path) -> list[Path]:
    """The user-local directories of the workspace whose storage root is `storage` (sorted)."""
    workspace = workspace_id(storage)
    base = data_dir()
    if workspace is None or base is None:
        return []
    try:
        with os.scandir(base / WORKSPACES) as listing:
            return sorted(
                Path(entry.path)
                for entry in listing
                if _named_for(entry.name, workspace) and entry.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []


def _user_dir_id(directory: Path) -> str | None:
    """The workspace id a user-local directory is named for, when it sits in `<data>/jp/workspace/`."""
    if directory.parent.name != WORKSPACES or directory.parent.parent.name != APPLICATION:
        return None
    suffix = directory.name.rsplit("-", 1)[-1]
    return suffix if _ID.fullmatch(suffix) else None


def workspace_storages(directory: Path) -> list[Path]:
    """For a user-local directory: the storage roots (`<checkout>/.jp`) of its workspace.

    From its roots registry (`roots/*.json`) and an older JP's `storage` link;
    only those whose `.id` still names this workspace (JP's `is_live`).
    """
    workspace = _user_dir_id(directory)
    if workspace is None:
        return []
    found: set[Path] = set()
    try:
        with os.scandir(directory / ROOTS) as listing:
            entries = [entry.path for entry in listing if entry.name.endswith(".json")]
    except OSError:
        entries = []
    for entry in entries:
        try:
            with open(entry, "rb") as handle:
                checkout = json.load(handle).get("path")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(checkout, str):
            found.add(Path(checkout, STORAGE_DIR))
    link = directory / LEGACY_LINK
    if link.is_symlink():
        found.add(Path(os.path.realpath(link)))
    return sorted(s for s in found if s.is_dir() and workspace_id(s) == workspace)


def lock_roots(storage: Path) -> tuple[str, ...]:
    """Every directory whose `locks/` may hold a lock on this storage root's conversations.

    JP's preferred one first: the user-local directory of a workspace; the
    storage root itself always (JP's fallback, and where a bare root's `jp` locks).
    """
    if _user_dir_id(storage) is not None:
        return (os.fspath(storage), *(os.fspath(s) for s in workspace_storages(storage)))
    return (*(os.fspath(d) for d in user_dirs(storage)), os.fspath(storage))


__all__ = ["data_dir", "lock_roots", "user_dirs", "workspace_storages"]
