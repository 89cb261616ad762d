"""The tools codemod: rewrite Python tools that print a legacy `Outcome` to print RFD 058 envelopes.

migrate_tools(paths, ToolsOptions(write=False)) -> list[ToolFile]
migrate_source(source) -> SourceResult        # one file's text, no I/O
discover_sources(paths, exclude, base) -> list[Path]  # the files migrate_tools would read
"""

from jp_migrate.codemod.api import ToolsOptions, migrate_tools
from jp_migrate.codemod.discover import discover as discover_sources
from jp_migrate.codemod.engine import SourceResult, migrate_source

__all__ = ["SourceResult", "ToolsOptions", "discover_sources", "migrate_source", "migrate_tools"]
