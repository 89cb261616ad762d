"""Batch migration of `.jp` conversation stores (SPEC §3): discover → load → convert → write.

Public API: `StoreOptions`, `migrate_stores`, `run_stores` (`store.api`) and
`RollbackOptions`, `rollback_stores` (`store.rollback`).
"""

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
