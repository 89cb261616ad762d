"""The bridge's one error type: a run that could not happen, said in one line."""

from __future__ import annotations

from jp_migrate.errors import JpMigrateError


class BridgeError(JpMigrateError):
    """A tool could not be found, rendered, spawned, finished or read.

    `source` names what failed (a config file, a tool, a server) so the one-line
    message always says where; the CLI prints it and exits 2.
    """

    def __init__(self, reason: str, *, source: str = "") -> None:
        self.reason = reason
        self.source = source
        super().__init__(f"{source}: {reason}" if source else reason)
