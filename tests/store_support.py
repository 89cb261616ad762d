"""Helpers for the store tests: stores built in tmp dirs, tree snapshots, event spans."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import CORPUS_DATA, REPO

CORPUS = CORPUS_DATA / "jp-store"
MESSAGES_ERA = CORPUS_DATA / "jp-store-messages-era"


def copy_tree(source: Path, target: Path) -> Path:
    """A writable copy (the corpus is read-only)."""
    shutil.copytree(source, target)
    for directory, dirs, files in os.walk(target):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)
    return target


def corpus_store(tmp: Path) -> Path:
    return copy_tree(CORPUS, tmp / "store")


def snapshot(root: Path) -> dict[str, tuple[str, int]]:
    """relative path → (sha256, mtime_ns) of every file under root (`.jp-migrate/` and `locks/` excluded)."""
    out: dict[str, tuple[str, int]] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".jp-migrate", "locks")):
            out[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns)
    return out


def b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def write_conversation(
    root: Path,
    name: str,
    events: list[Any] | bytes | str,
    *,
    archived: bool = False,
    metadata: bool = True,
) -> Path:
    directory = root / "conversations" / (".archive" if archived else "") / name
    directory.mkdir(parents=True, exist_ok=True)
    if metadata:
        (directory / "metadata.json").write_text('{\n  "title": "t"\n}\n', "utf-8")
    if isinstance(events, bytes):
        (directory / "events.json").write_bytes(events)
    elif isinstance(events, str):
        (directory / "events.json").write_text(events, "utf-8")
    else:
        (directory / "events.json").write_text(
            json.dumps(events, indent=2, ensure_ascii=False) + "\n", "utf-8"
        )
    return directory / "events.json"


def legacy_events(
    call: str = "call_1", text: str = "Check succeeded.", *, encode: bool = True
) -> list[Any]:
    return [
        {"timestamp": "2026-01-01 10:00:00.0", "type": "chat_request", "content": "run it"},
        {
            "timestamp": "2026-01-01 10:00:01.0",
            "type": "tool_call_request",
            "id": call,
            "name": "cargo_check",
            "arguments": {},
        },
        {
            "timestamp": "2026-01-01 10:00:02.0",
            "type": "tool_call_response",
            "id": call,
            "content": b64(text) if encode else text,
            "is_error": False,
        },
        {"timestamp": "2026-01-01 10:00:03.0", "type": "chat_response", "message": "done"},
    ]


def events(path: Path) -> list[Any]:
    return json.loads(path.read_bytes())


def responses(path: Path) -> list[dict[str, Any]]:
    return [e for e in events(path) if e.get("type") == "tool_call_response"]


def element_bytes(raw: bytes) -> list[bytes]:
    """Each top-level event's exact bytes in a JSON array file."""
    from jp_migrate.store.canonical import element_spans

    text = raw.decode("utf-8")
    return [text[a:b].encode("utf-8") for a, b in element_spans(text)]


def bench_module() -> Any:
    spec = importlib.util.spec_from_file_location(
        "bench_store", REPO / "benchmarks" / "bench_store.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def generated_store(
    tmp: Path, conversations: int = 40, total_bytes: int = 400_000, seed: int = 7
) -> Path:
    return bench_module().generate_store(
        tmp / "generated",
        conversations=conversations,
        total_bytes=total_bytes,
        seed=seed,
        archived=3,
    )


JP_TRY_LOCK = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    print("locked")
else:
    print("acquired")
"""


def jp_try_lock(path: Path) -> str:
    """What a `jp` starting now gets for this lock file (`jp_storage::lock`: open, flock
    LOCK_EX|LOCK_NB), from a process of its own: "locked" or "acquired"."""
    done = subprocess.run(
        [sys.executable, "-c", JP_TRY_LOCK, str(path)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()
