"""jp-migrate: carry JP tools and conversation stores from `Outcome` to RFD 058 content blocks.

This module stays import-light on purpose: `jp-migrate --help` must not pay for
pydantic, libcst or the MCP SDK. The contract lives in `jp_migrate.contract`,
the pure conversion core in `jp_migrate.convert`.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
