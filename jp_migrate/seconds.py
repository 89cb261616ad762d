"""A timeout in seconds, as the CLI and the CI configuration take it."""

from __future__ import annotations

import math


def is_seconds(value: object) -> bool:
    """A number (not a bool) of seconds above 0 and finite: not `inf`, not `nan` (which
    compares false with everything, so `0 < nan` alone would not catch it)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < math.inf
