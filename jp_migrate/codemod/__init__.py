"""The tools codemod: rewrite Python tools that print a legacy `Outcome` to print RFD 058 envelopes.

    migrate_tools(paths, ToolsOptions(write=False)) -> list[ToolFile]
    migrate_source(source) -> SourceResult        # one file's text, no I/O
    discover_sources(paths, exclude, base) -> list[Path]  # the files migrate_tools reads

Loaded on first use: a file the pre-check rules out never loads libcst.
"""

from __future__ import annotations

from jp_migrate._lazy import lazy_exports

_PUBLIC: dict[str, tuple[str, ...]] = {
    "jp_migrate.codemod.api": ("ToolsOptions", "discover_sources", "migrate_tools"),
    "jp_migrate.codemod.engine": ("SourceResult", "migrate_source"),
}
_EXPORTS = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = [name for names in _PUBLIC.values() for name in names]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
