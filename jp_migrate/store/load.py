"""Read a conversation's `events.json`: bytes in, a JSON array of events out, or one ContractError.

orjson parses (several times faster than the standard library); when it refuses
a document the standard library would take (integers beyond 64 bits), that
parser is used instead, and its error message names line and column otherwise.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

import orjson

from jp_migrate.contract.parse import load_json
from jp_migrate.errors import ContractError


@dataclass(frozen=True)
class EventsFile:
    raw: bytes
    events: list[Any]
    mode: int = 0o644  # st_mode of the file read, from the same descriptor
    times: tuple[int, int] | None = None  # its (st_atime_ns, st_mtime_ns), kept by a rewrite

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()


def _reject_constant(name: str) -> Any:
    raise ContractError(f"invalid JSON: {name} is not a JSON value")


def parse_events(raw: bytes, *, source: str) -> list[Any]:
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            load_json(raw, source=source)  # raises the "not valid UTF-8 (byte N)" error
        try:
            value = json.loads(raw, parse_constant=_reject_constant)
        except ContractError as exc:
            raise exc.with_source(source) from None
        except (json.JSONDecodeError, RecursionError):
            load_json(raw, source=source)  # raises with line and column
            raise  # pragma: no cover - load_json always raises here
    if not isinstance(value, list):
        kind = type(value).__name__ if not isinstance(value, dict) else "object"
        raise ContractError(f"expected a JSON array of events, found a JSON {kind}", source=source)
    return value


def _read(path: str | os.PathLike[str]) -> tuple[bytes, os.stat_result]:
    """The file's bytes and stat, from one descriptor: open, fstat, read (usually once), close."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        size = info.st_size
        raw = os.read(fd, size + 1)  # a regular file returns less only at its end
        if len(raw) != size:  # it changed size since the fstat: read on to the end
            chunks = [raw]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            raw = b"".join(chunks)
        return raw, info
    finally:
        os.close(fd)


def read_events(path: str | os.PathLike[str], *, source: str) -> EventsFile:
    try:
        raw, info = _read(path)
    except OSError as exc:
        raise ContractError(f"cannot read: {exc.strerror or exc}", source=source) from None
    times = (info.st_atime_ns, info.st_mtime_ns)
    return EventsFile(raw, parse_events(raw, source=source), info.st_mode, times)
