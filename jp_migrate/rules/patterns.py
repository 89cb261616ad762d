"""Rule-file patterns that run in linear time, or a reason to refuse them.

Python's `re` backtracks: a pattern such as `(a+)+$` takes time exponential in
the line it is matched against, and `.*.*.*x` a high power of it. Rule files
come from repositories, so their patterns are checked when the rule is loaded:
refused are backreferences, lookarounds and conditionals (which no bound
covers), a repeat of anything that itself repeats or branches (nested
quantifiers), and more than one repeat without an upper bound. What remains
is matched (`fullmatch`, one line) in at most `MAX_TRIES` tries per character
of the line: linear time.
"""

from __future__ import annotations

import re
import re._constants as sre_constants  # the parser's node kinds (stdlib since 3.11)
import re._parser as sre_parser
from typing import Any

MAX_TRIES = 1000  # the ways a pattern may try to match at each position, bounded repeats included

_NO_BOUND = {
    sre_constants.GROUPREF: "a backreference",
    sre_constants.GROUPREF_EXISTS: "a conditional group",
    sre_constants.ASSERT: "a lookaround",
    sre_constants.ASSERT_NOT: "a lookaround",
}
_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)


class Backtracks(Exception):
    """The pattern may take more than linear time; the message says why."""


def _cost(items: Any) -> tuple[int, int]:
    """(repeats without an upper bound, tries per position the bounded choices add) of a
    parsed sequence."""
    unbounded, tries = 0, 1
    for op, arg in items:
        if op in _NO_BOUND:
            raise Backtracks(f"{_NO_BOUND[op]} (no linear bound)")
        if op is sre_constants.SUBPATTERN:
            inner = _cost(arg[3])
        elif op is sre_constants.ATOMIC_GROUP:
            inner = _cost(arg)
        elif op is sre_constants.BRANCH:
            costs = [_cost(branch) for branch in arg[1]]
            inner = (max(c[0] for c in costs), sum(c[1] for c in costs))
        elif op in _REPEATS:
            inner = _repeat(*arg)
        else:
            continue  # one character, a class, an anchor: no choice
        unbounded += inner[0]
        tries *= inner[1]
        if unbounded > 1:
            raise Backtracks(
                "more than one repeat without an upper bound (`*`, `+`, `{m,}`): give all but "
                "one a bound, e.g. `\\d{1,9}`"
            )
        if tries > MAX_TRIES:
            raise Backtracks(f"its bounded repeats and alternatives allow over {MAX_TRIES} tries")
    return unbounded, tries


def _repeat(low: int, high: int, body: Any) -> tuple[int, int]:
    inner = _cost(body)
    if low == high:  # a fixed count: the body's own choices, that many times
        return inner[0] * high, inner[1] ** min(high, 64)
    if inner != (0, 1):
        raise Backtracks("a repeat of something that repeats or branches (nested quantifiers)")
    if high is sre_constants.MAXREPEAT or high - low >= MAX_TRIES:
        return 1, 1
    return 0, high - low + 1


def backtracking(pattern: str) -> str | None:
    """Why `pattern` is refused (it may not run in linear time, or is no pattern), or None."""
    try:
        re.compile(pattern)
        _cost(sre_parser.parse(pattern))
    except re.error as exc:
        return f"{pattern!r} is not a regular expression: {exc}"
    except Backtracks as exc:
        return f"{pattern!r} may backtrack without a linear bound: {exc}"
    return None
