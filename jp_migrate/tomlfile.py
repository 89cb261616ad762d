"""Read a TOML file (rules, configs, JP's tool configs): a table, or one error naming why not."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Tables and arrays nested deeper than this are refused: no config or rule needs a tenth of
# it, and what reads the document (tomllib itself, validation, copies) recurses per level.
MAX_DEPTH = 64


def read_toml(path: Path, error: Callable[[str], Exception]) -> dict[str, Any]:
    """The parsed document; `error(reason)` is raised for an unreadable, non-UTF-8 or invalid
    file, one that is not a regular file or is too large (`files.edit.READ_LIMIT`), or one
    nested deeper than `MAX_DEPTH`. Newlines are kept as written (CRLF stays CRLF)."""
    from jp_migrate.files.edit import NotRegular, read_bounded

    try:
        text = read_bounded(path).decode("utf-8").removeprefix("\ufeff")  # a BOM, as toml_edit
    except NotRegular as exc:  # a FIFO, a device, a giant: never waited on nor read whole
        raise error(str(exc).removeprefix(f"{path}: ")) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise error("not valid UTF-8") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"invalid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise error(f"invalid TOML: nested deeper than {MAX_DEPTH} levels") from None
    if _too_deep(document):
        raise error(f"invalid TOML: nested deeper than {MAX_DEPTH} levels")
    return document


def _too_deep(document: dict[str, Any]) -> bool:
    """Whether tables and arrays nest beyond `MAX_DEPTH` (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(document, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
    return False
