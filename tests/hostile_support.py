"""What the hostile-scenario suites share: building a scenario from its file, and a
snapshot of a directory taken by lstat (no link followed, no FIFO opened)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
from pathlib import Path
from typing import Any

Entry = tuple[str, int, int, str]


def prepare(scenarios: Path, name: str, tmp: Path, root: str) -> tuple[Path, Path, dict[str, Any]]:
    """`tmp/<root>` and `tmp/outside`, made and filled by the scenario: (root, outside, what
    the scenario returned)."""
    top, outside = tmp / root, tmp / "outside"
    top.mkdir()
    outside.mkdir()
    return top, outside, build_scenario(scenarios, name, top, outside)


def build_scenario(scenarios: Path, name: str, root: Path, outside: Path) -> dict[str, Any]:
    """`scenarios/<name>.py`'s `build(root, outside)` (its directory importable meanwhile,
    for the helpers the scenarios share)."""
    sys.path.insert(0, str(scenarios))
    try:
        spec = importlib.util.spec_from_file_location(f"hostile_{name}", scenarios / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        info: dict[str, Any] = module.build(root, outside)
    finally:
        sys.path.remove(str(scenarios))
    return info


def _digest(path: bytes, size: int) -> str:
    if size > 64 << 20:  # a sparse giant: its size and mtime are compared instead
        return "large"
    with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def snapshot(top: Path) -> dict[bytes, Entry]:
    """Every entry under `top` by lstat: no link is followed and no FIFO opened."""
    found: dict[bytes, Entry] = {}
    pending = [os.fsencode(top)]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except PermissionError:
            continue
        for entry in entries:
            info = entry.stat(follow_symlinks=False)
            kind = stat.S_IFMT(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                detail = os.fsdecode(os.readlink(entry.path))
            elif stat.S_ISREG(info.st_mode):
                detail = f"{info.st_mtime_ns}:{_digest(entry.path, info.st_size)}"
            else:
                detail = ""
            found[entry.path] = (str(kind), stat.S_IMODE(info.st_mode), info.st_size, detail)
            if stat.S_ISDIR(info.st_mode):
                pending.append(entry.path)
    return found
