"""The adapters' size limit: the largest message (MCP) or tool output they read whole."""

from __future__ import annotations

MAX_MESSAGE = 64 * 1024 * 1024  # the default, in bytes: far above real traffic
_UNITS = {"": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


def parse_size(text: str) -> int | None:
    """`--max-message`'s value in bytes (`65536`, `64KiB`, `64MiB`, `1GiB`); None when it is
    not a whole number of bytes above 0."""
    stripped = text.strip()
    digits = stripped.rstrip("KMGiBkmgb")
    unit = _UNITS.get(stripped[len(digits) :].lower())
    if unit is None or not digits.isdigit() or not digits.isascii():
        return None
    size = int(digits) * unit
    return size if size > 0 else None
