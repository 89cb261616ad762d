"""Batch migration of `.jp` conversation stores: discover → load → convert → write.

Public API: `StoreOptions`, `migrate_stores`, `run_stores` (`store.api`) and
`RollbackOptions`, `rollback_stores` (`store.rollback`). Loaded on first use:
`jp-migrate conversations` on a store with nothing in it imports neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jp_migrate._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "RollbackOptions": "jp_migrate.store.rollback",
    "RollbackRun": "jp_migrate.store.rollback",
    "StoreOptions": "jp_migrate.store.api",
    "StoreRun": "jp_migrate.store.api",
    "migrate_stores": "jp_migrate.store.api",
    "rollback_stores": "jp_migrate.store.rollback",
    "run_stores": "jp_migrate.store.api",
}

if TYPE_CHECKING:
    from jp_migrate.store.api import StoreOptions, StoreRun, migrate_stores, run_stores
    from jp_migrate.store.rollback import RollbackOptions, RollbackRun, rollback_stores

__all__ = [
    "RollbackOptions",
    "RollbackRun",
    "StoreOptions",
    "StoreRun",
    "migrate_stores",
    "rollback_stores",
    "run_stores",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
