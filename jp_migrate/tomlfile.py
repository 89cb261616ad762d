"""Read a TOML file (rules, configs, JP's tool configs): a table, or one error naming why not."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any


def read_toml(path: Path, error: Callable[[str], Exception]) -> dict[str, Any]:
    """The parsed document; `error(reason)` is raised for an unreadable, non-UTF-8 or invalid file."""
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error("not valid UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"invalid TOML: {exc}") from None
