"""The package's error types: every user-facing failure is one of these, never a traceback."""

from __future__ import annotations


class JpMigrateError(Exception):
    """Base class for every error jp-migrate reports to a user as one line."""


class ContractError(JpMigrateError, ValueError):
    """A document does not fit the contract (an `Outcome`, envelope, event, rule, …).

    `field` is a dotted/indexed path to the offending field (empty for the whole
    document), `reason` says what is wrong with it, `source` names where the
    document came from (a file path, `<stdin>`, …) when known.
    """

    def __init__(self, reason: str, *, field: str = "", source: str = "") -> None:
        self.reason = reason
        self.field = field
        self.source = source
        super().__init__(self._format())

    def _format(self) -> str:
        where = f"{self.source}: " if self.source else ""
        what = f"{self.field}: " if self.field else ""
        return f"{where}{what}{self.reason}"

    def with_source(self, source: str) -> ContractError:
        return ContractError(self.reason, field=self.field, source=source)


class RuleError(JpMigrateError):
    """A rule file is malformed: names the file, the key and the reason."""

    def __init__(self, path: str, key: str, reason: str) -> None:
        self.path = path
        self.key = key
        self.reason = reason
        super().__init__(f"{path}: {key}: {reason}" if key else f"{path}: {reason}")


class InterruptReported(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) after the command already said what state it left behind."""
