"""JSON text read and written as serde_json does (SPEC §1): no pydantic, so cheap to import."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Mapping

from jp_migrate.errors import ContractError

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the adapter's path)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# A `\uD800`-`\uDFFF` escape: only then can a parsed string hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")

# JP parses JSON with serde_json, whose recursion limit is 128: it refuses the 128th
# array or object opened inside the others, so a document JP reads nests 127 levels at
# most (`[[1]]` nests 2). Every reader of JSON from outside holds documents to it.
MAX_DEPTH = 127
TOO_DEEP = f"nested too deeply (JP reads {MAX_DEPTH} levels of arrays and objects at most)"


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


# A surrogate code point: in a Python string always a lone one (a pair is one code point).
_SURROGATE = re.compile("[\ud800-\udfff]")


def _lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None  # searched in place: no UTF-8 copy
    if isinstance(value, list):
        return any(_lone_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(_lone_surrogate(k) or _lone_surrogate(v) for k, v in value.items())
    return False


def may_be_too_deep(text: bytes | str) -> bool:
    """Whether JSON `text` opens enough arrays and objects to nest past MAX_DEPTH (a count
    of brackets, strings included: False is certain, True calls for `too_deep`)."""
    if isinstance(text, str):
        return text.count("[") + text.count("{") > MAX_DEPTH
    return text.count(b"[") + text.count(b"{") > MAX_DEPTH


def too_deep(value: Any) -> bool:
    """Whether the parsed JSON `value` nests arrays and objects deeper than JP reads
    (level by level, without recursion)."""
    level = [value] if type(value) is list or type(value) is dict else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_DEPTH:
            return True
        inner = []
        for item in level:
            for child in item.values() if type(item) is dict else item:
                if type(child) is list or type(child) is dict:
                    inner.append(child)
        level = inner
    return False


def check_depth(value: Any, text: bytes | str, *, source: str = "") -> None:
    """ContractError when `value`, parsed from `text`, nests deeper than JP reads."""
    if may_be_too_deep(text) and too_deep(value):
        raise ContractError(f"invalid JSON: {TOO_DEEP}", source=source)


def load_json(data: bytes | str, *, source: str = "") -> Any:
    """Parse JSON text as serde_json does; anything it would refuse is one ContractError.

    Refused: non-UTF-8 bytes, syntax errors, `NaN`/`Infinity`, numbers (integers
    too) beyond a double's range, strings holding a lone UTF-16 surrogate
    (`"\\ud800"`), which no UTF-8 text can carry, and nesting deeper than
    MAX_DEPTH.
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
        raise ContractError(f"invalid JSON: {TOO_DEEP}", source=source) from None
    check_depth(value, data, source=source)
    if _SURROGATE_ESCAPE.search(data) and _lone_surrogate(value):
        raise ContractError("invalid JSON: a string escapes a lone UTF-16 surrogate", source=source)
    return value


_I64_MIN, _U64_MAX = -(1 << 63), (1 << 64) - 1


def serde_float(value: float) -> str:
    """A finite double as serde_json writes it: the shortest digits that read back
    (Python's `repr` finds the same ones), laid out as the `ryu` crate lays them out.

    So `2.0`, `0.00001` and `1e20` where Python writes `2.0`, `1e-05` and `1e+20`.
    """
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exp = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0")
    if not digits:
        return f"{sign}0.0"
    exponent = (int(exp) if exp else 0) - len(fraction)  # value = digits × 10**exponent
    significant = digits.rstrip("0")
    exponent += len(digits) - len(significant)
    length = len(significant)
    point = length + exponent  # 10**(point-1) <= value < 10**point
    if exponent >= 0 and point <= 16:
        body = significant + "0" * exponent + ".0"
    elif 0 < point <= 16:
        body = f"{significant[:point]}.{significant[point:]}"
    elif -5 < point <= 0:
        body = "0." + "0" * -point + significant
    elif length == 1:
        body = f"{significant}e{point - 1}"
    else:
        body = f"{significant[0]}.{significant[1:]}e{point - 1}"
    return sign + body


def _number(value: float) -> str:
    if isinstance(value, int):
        if _I64_MIN <= value <= _U64_MAX:
            return int.__repr__(value)
        value = float(value)  # serde_json holds an integer beyond 64 bits as a double
    return serde_float(value) if math.isfinite(value) else "null"


def dumps_compact(value: Any, *, default: Callable[[Any], Any] | None = None, end: str = "") -> str:
    """serde_json's compact form: no spaces, non-ASCII unescaped, numbers as it writes them.

    `default` turns a value that is not JSON into one (as `json.dumps`'s); without
    it such a value is a TypeError. `end` follows the text (a line's newline, without
    a copy of a large text to add it).
    """
    out: list[str] = []
    _write(value, out, default)
    out.append(end)
    return "".join(out)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, bool):
        return json.dumps(key)
    if isinstance(key, int | float):
        return _number(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _write(value: Any, out: list[str], default: Callable[[Any], Any] | None) -> None:
    if isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif value is None or isinstance(value, bool):
        out.append(json.dumps(value))
    elif isinstance(value, int | float):
        out.append(_number(value))
    elif isinstance(value, Mapping):
        out.append("{")
        for index, (key, item) in enumerate(value.items()):
            if index:
                out.append(",")
            out.append(json.dumps(_key(key), ensure_ascii=False))
            out.append(":")
            _write(item, out, default)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out, default)
        out.append("]")
    elif default is not None:
        _write(default(value), out, None)
    else:
        raise TypeError(f"{type(value).__name__} is not JSON")
