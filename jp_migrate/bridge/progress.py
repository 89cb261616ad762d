"""A long-running MCP call's progress notifications as a progress bar (on a terminal only)."""

from __future__ import annotations

import sys
from typing import Any


class ProgressBar:
    """rich's progress bar on stderr, shown from the first notification until `close()`.

    Called in the event loop, from the SDK's task that reads the notification.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self._progress: Any = None
        self._task: Any = None

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        from rich.markup import escape

        from jp_migrate.visible import visible

        if self._progress is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
            )
            self._progress.start()
            self._task = self._progress.add_task(escape(self.label), total=total)
        description = escape(visible(" ".join((message or self.label).split())))
        self._progress.update(self._task, completed=progress, total=total, description=description)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None


def progress_bar(label: str) -> ProgressBar | None:
    """A bar when stderr is a terminal; None (no bar) otherwise."""
    return ProgressBar(label) if sys.stderr.isatty() else None
