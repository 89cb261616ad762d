"""JSON text read as serde_json reads it (SPEC §1): no pydantic, so cheap to import."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from jp_migrate.errors import ContractError

# A `\uD800`-`\uDFFF` escape: only then can a parsed string hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _NotJson(ValueError):
    pass


def _no_constant(name: str) -> Any:
    # `NaN`, `Infinity` and `-Infinity` are Python's extension, not JSON (serde_json rejects them).
    raise _NotJson(f"{name} is not a JSON value")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NotJson(f"number {text} is out of range")
    return value


_DOUBLE_MAX = int(sys.float_info.max)


def _integer(text: str) -> int:
    """An integer serde_json can hold: it reads one beyond 64 bits as a double, so one
    beyond a double's range (some 309 digits) is out of range, as is one Python will
    not convert (more than 4,300 digits)."""
    if len(text) > 330:  # past any double, and before int() refuses it with a ValueError
        raise _NotJson(f"number {text[:20]}… ({len(text)} digits) is out of range")
    value = int(text)
    if abs(value) > _DOUBLE_MAX:
        raise _NotJson(f"number {text[:20]}… ({len(text)} digits) is out of range")
    return value


def _lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, list):
        return any(_lone_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    return False


def load_json(data: bytes | str, *, source: str = "") -> Any:
    """Parse JSON text as serde_json does; anything it would refuse is one ContractError.

    Refused: non-UTF-8 bytes, syntax errors, `NaN`/`Infinity`, numbers (integers
    too) beyond a double's range, and strings
    holding a lone UTF-16 surrogate (`"\\ud800"`), which no UTF-8 text can carry.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ContractError(f"not valid UTF-8 (byte {exc.start})", source=source) from None
    elif _lone_surrogate(data):
        raise ContractError("not valid UTF-8 (holds a lone surrogate)", source=source)
    try:
        value = json.loads(
            data, parse_constant=_no_constant, parse_float=_finite, parse_int=_integer
        )
    except json.JSONDecodeError as exc:
        raise ContractError(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", source=source
        ) from None
    except _NotJson as exc:
        raise ContractError(f"invalid JSON: {exc}", source=source) from None
    except RecursionError:
        raise ContractError("invalid JSON: nested too deeply", source=source) from None
    if _SURROGATE_ESCAPE.search(data) and _lone_surrogate(value):
        raise ContractError("invalid JSON: a string escapes a lone UTF-16 surrogate", source=source)
    return value
