"""The dual-path bridge: run JP tools (local or MCP) the way JP does, and verify before/after.

    from jp_migrate.bridge import Target, Inputs, run_target, verify_cases, load_cases

The public names below are re-exported lazily, so importing the package costs
nothing and the MCP SDK loads only when an MCP tool runs.
"""

from __future__ import annotations

from jp_migrate._lazy import lazy_exports

_EXPORTS = {
    "BridgeError": "jp_migrate.bridge.errors",
    "Case": "jp_migrate.bridge.verify",
    "Inputs": "jp_migrate.bridge.target",
    "Target": "jp_migrate.bridge.target",
    "cases_from_store": "jp_migrate.bridge.verify",
    "load_cases": "jp_migrate.bridge.verify",
    "load_workspace": "jp_migrate.bridge.config",
    "run_target": "jp_migrate.bridge.target",
    "verify_cases": "jp_migrate.bridge.verify",
}

__all__ = [
    "BridgeError",
    "Case",
    "Inputs",
    "Target",
    "cases_from_store",
    "load_cases",
    "load_workspace",
    "run_target",
    "verify_cases",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
