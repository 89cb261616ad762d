"""Shared helpers for the hostile scenarios (stdlib only, Python 3.11).

Every scenario imports this module via
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
The real JP stores are only ever READ from; copies get fresh modes (0644/0755)
because the originals are read-only.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil

# The real stores, as copied into tests/data/corpus/ (PROVENANCE.md there).
_CORPUS = pathlib.Path(__file__).resolve().parents[2] / "corpus"
REAL = _CORPUS / "jp-store" / "conversations"
REAL_MSG_ERA = _CORPUS / "jp-store-messages-era" / "conversations"

# Conversations holding legacy (string-content) tool_call_response events.
LEGACY_A = "17673061097-jp-conversation-storage-transfer-bug"
LEGACY_B = "17727484633-preventing-rfd-summary-regeneration-churn"
# A conversation without any tool_call_response (nothing to migrate).
PLAIN = "17462040864"
MSG_ERA = "17462040864"


def real_bytes(conv: str, fname: str = "events.json", store: pathlib.Path = REAL) -> bytes:
    return (store / conv / fname).read_bytes()


def write(path: pathlib.Path, data: bytes | str, mode: int = 0o644) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    os.chmod(path, mode)
    return path


def copy_conv(src: str, dst_dir: pathlib.Path | bytes, store: pathlib.Path = REAL) -> pathlib.Path | bytes:
    """Copy a real conversation dir (bytes only, fresh modes). dst_dir may be bytes."""
    srcp = store / src
    if isinstance(dst_dir, bytes):
        os.makedirs(dst_dir, mode=0o755, exist_ok=True)
        for f in sorted(os.listdir(srcp)):
            with open(os.path.join(dst_dir, os.fsencode(f)), "wb") as out:
                out.write((srcp / f).read_bytes())
        return dst_dir
    dst_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(dst_dir, 0o755)
    for f in sorted(srcp.iterdir()):
        write(dst_dir / f.name, f.read_bytes())
    return dst_dir


def workspace(root: pathlib.Path) -> pathlib.Path:
    """Create root/.jp/conversations and return it."""
    convs = root / ".jp" / "conversations"
    convs.mkdir(parents=True, exist_ok=True)
    return convs


def control(convs: pathlib.Path, which: str = LEGACY_A) -> str:
    """A clean, real, migratable conversation copied verbatim; returns its dir name."""
    copy_conv(which, convs / which)
    return which


def victims(outside: pathlib.Path) -> dict:
    """Plant victim files outside the workspace. Returns a dict of their paths."""
    outside.mkdir(parents=True, exist_ok=True)
    v = {}
    v["secret"] = write(outside / "victim_secret.txt", "TOP SECRET: the tool must never read or write this file.\n")
    v["events"] = write(outside / "victim_events.json", real_bytes(LEGACY_B))
    v["conv"] = copy_conv(LEGACY_B, outside / "victim_conv" / LEGACY_B)
    v["conv_a"] = copy_conv(LEGACY_A, outside / "victim_conv" / LEGACY_A)
    v["convs_dir"] = outside / "victim_conv"
    v["dir"] = outside / "victim_dir"
    write(v["dir"] / "keep.txt", "victim directory content\n")
    v["empty_dir"] = outside / "victim_empty_dir"
    v["empty_dir"].mkdir(exist_ok=True)
    v["missing"] = outside / "must_not_be_created"  # never created; a write through a dangling link would create it
    return v


def mkfifo(path) -> None:
    os.mkfifo(path, 0o644)


def mksock(path) -> None:
    import socket
    # bind relative to the parent dir: AF_UNIX paths are limited to ~107 bytes
    path = os.fspath(path)
    parent, name = os.path.split(path)
    cwd = os.open(".", os.O_RDONLY)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.chdir(parent or ".")
        s.bind(name)
    finally:
        s.close()  # the socket inode stays on disk, nobody listens
        os.fchdir(cwd)
        os.close(cwd)


def canon(v) -> str:
    return json.dumps(v, indent=2, ensure_ascii=False) + "\n"


def sha(path) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


def legacy_events(conv: str = LEGACY_A) -> list:
    return json.loads(real_bytes(conv))
