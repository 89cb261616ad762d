"""Stop signals (Ctrl-C's SIGINT, SIGTERM, SIGHUP): how a command ends on one.

While a command works, a stop signal raises KeyboardInterrupt where the work is
(SIGTERM and SIGHUP as `Terminated`, which carries the signal for the exit code,
128 + its number), and the work stops cleanly. Once the work is recorded there
is nothing left to stop: `Hold` keeps the signal until the command has said
what it did (its summary, how to undo it), then ends the command as the signal
asked.
"""

from __future__ import annotations

import signal
from types import FrameType
from typing import Any

from jp_migrate.errors import InterruptReported

STOP_SIGNALS = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Terminated(KeyboardInterrupt):
    """A terminating signal, ending the run as Ctrl-C does; the exit code says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Hold:
    """Stop signals held from `start` to `end`: the end of a command is never cut short.

    Only in the main thread (where Python runs signal handlers); a signal the process
    ignores stays ignored.
    """

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}
        self.signum: int | None = None  # the first signal held

    def start(self) -> None:
        """Hold stop signals from now on (once the work is recorded)."""
        if self._previous:
            return
        for number in STOP_SIGNALS:
            if signal.getsignal(number) == signal.SIG_IGN:
                continue
            try:
                self._previous[number] = signal.signal(number, self._held)
            except ValueError:  # not the main thread: signals reach the command as they would
                return

    def _held(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum

    def end(self) -> None:
        """The handlers as they were; a signal held meanwhile ends the command now, as
        `InterruptReported` (the command said what it left)."""
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()
        if self.signum is not None:
            signum, self.signum = self.signum, None
            cause = KeyboardInterrupt() if signum == signal.SIGINT else Terminated(signum)
            raise InterruptReported from cause
