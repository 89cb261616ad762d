"""The tools codemod: rewrite Python tools that print a legacy `Outcome` to print RFD 058 envelopes.

    migrate_tools(paths, ToolsOptions(write=False)) -> list[ToolFile]
    migrate_source(source) -> SourceResult        # one file's text, no I/O

Loaded on first use: a file the pre-check rules out never loads libcst.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jp_migrate._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "SourceResult": "jp_migrate.codemod.engine",
    "ToolsOptions": "jp_migrate.codemod.api",
    "migrate_source": "jp_migrate.codemod.engine",
    "migrate_tools": "jp_migrate.codemod.api",
}

if TYPE_CHECKING:
    from jp_migrate.codemod.api import ToolsOptions, migrate_tools
    from jp_migrate.codemod.engine import SourceResult, migrate_source

__all__ = [
    "SourceResult",
    "ToolsOptions",
    "migrate_source",
    "migrate_tools",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
