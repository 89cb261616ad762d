"""Read a conversation's `events.json`: bytes in, a JSON array of events out, or one ContractError.

orjson parses (several times faster than the standard library); when it refuses
a document, `load_json` (serde_json's rules on the standard library's parser)
decides as JP's serde_json would: it refuses a byte order mark, a lone surrogate
escape and a number beyond a double's range, which the standard library alone
would take (a rewrite would then fail, or write `Infinity`).

orjson reads an integer beyond 64 bits as a double without a word. Events that
are kept byte for byte do not care; an event about to be rewritten does (its
`36893488147419103232` would be written `3.6893488147419103e+19`), so a file
whose rewritten events hold such a double is read again by `load_json`, which
keeps the integer as written (`exactly`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass
from typing import Any

import orjson

from jp_migrate.contract.jsontext import check_depth
from jp_migrate.contract.parse import load_json
from jp_migrate.errors import ContractError


@dataclass(frozen=True)
class StoredFile:
    """A file's bytes as read, and what a file written in its place keeps of it."""

    raw: bytes
    mode: int = 0o644  # st_mode of the file read, from the same descriptor
    times: tuple[int, int] | None = None  # its (st_atime_ns, st_mtime_ns), kept by a rewrite
    owner: tuple[int, int] | None = None  # its (st_uid, st_gid), kept by a rewrite where we may
    device: int | None = None  # its st_dev: the filesystem a rewrite makes durable

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.raw).hexdigest()


@dataclass(frozen=True)
class EventsFile(StoredFile):
    events: list[Any] = dataclasses.field(default_factory=list)


def parse_events(raw: bytes, *, source: str) -> list[Any]:
    try:
        value = orjson.loads(raw)
        check_depth(value, raw, source=source)  # orjson reads deeper than JP
    except orjson.JSONDecodeError:
        # orjson refuses what serde_json refuses, and integers beyond 64 bits, which JP
        # reads: the strict parser decides (and names line and column of a syntax error).
        value = load_json(raw, source=source)
    if not isinstance(value, list):
        kind = type(value).__name__ if not isinstance(value, dict) else "object"
        raise ContractError(f"expected a JSON array of events, found a JSON {kind}", source=source)
    return value


# The least magnitude at which orjson may have read an integer as a double.
_WIDE = float(2**63)


def may_be_wide(value: Any) -> bool:
    """Whether `value` holds a whole double of 2**63 or more: perhaps a wider integer orjson read."""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if abs(item) >= _WIDE and item.is_integer():
                return True
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def exactly(loaded: EventsFile, *, source: str) -> EventsFile:
    """`loaded` read again by the strict parser, every integer as written."""
    events = load_json(loaded.raw, source=source)
    assert isinstance(events, list)  # `parse_events` took the same bytes as an array
    return dataclasses.replace(loaded, events=events)


def _read(path: str | os.PathLike[str], flags: int = 0) -> tuple[bytes, os.stat_result]:
    """The file's bytes and stat, from one descriptor: open, fstat, read (usually once), close."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | flags)
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


def read_file(path: str | os.PathLike[str]) -> StoredFile:
    """A file's bytes and attributes, never through a link (OSError: ELOOP for one)."""
    raw, info = _read(path, os.O_NOFOLLOW)
    return _stored(raw, info)


def _stored(raw: bytes, info: os.stat_result) -> StoredFile:
    times = (info.st_atime_ns, info.st_mtime_ns)
    owner = (info.st_uid, info.st_gid)
    return StoredFile(raw, info.st_mode, times, owner, info.st_dev)


def with_events(stored: StoredFile, *, source: str) -> EventsFile:
    """`stored` parsed as a JSON array of events (ContractError when it is not one)."""
    events = parse_events(stored.raw, source=source)
    s = stored
    return EventsFile(s.raw, s.mode, s.times, s.owner, s.device, events=events)


def read_events(path: str | os.PathLike[str], *, source: str) -> EventsFile:
    try:
        raw, info = _read(path)
    except OSError as exc:
        raise ContractError(f"cannot read: {exc.strerror or exc}", source=source) from None
    return with_events(_stored(raw, info), source=source)
