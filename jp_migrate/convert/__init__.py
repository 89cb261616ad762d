"""The conversion core: pure functions on contract models, no I/O.

The names below are re-exported lazily (PEP 562): importing one submodule
(`jp_migrate.convert.host`) does not load the others. The functions `render`
and `compare` are not among them: each shares its module's name, which the
package attribute names once the module is loaded, so they are imported from
`jp_migrate.convert.render` and `jp_migrate.convert.compare`.
"""

from __future__ import annotations

from jp_migrate._lazy import lazy_exports

_PUBLIC: dict[str, tuple[str, ...]] = {
    "jp_migrate.convert.compare": (
        "Comparison",
        "EXPECTED_DIFFERENCES",
        "semantic_differences",
    ),
    "jp_migrate.convert.encoding": (
        "decode_payload",
        "encode_payload",
    ),
    "jp_migrate.convert.events": (
        "downgrade_response",
        "is_migrated",
        "is_response",
        "stored_payload_text",
        "survives_downgrade",
        "upgrade_response",
    ),
    "jp_migrate.convert.host": (
        "ToolRun",
        "blocks_outcome",
        "envelope_semantics",
        "legacy_outcome",
        "outcome_semantics",
        "raw_outcome",
    ),
    "jp_migrate.convert.render": (
        "downgrade",
        "language_for_mime",
        "mime_for_language",
    ),
    "jp_migrate.convert.upgrade": (
        "answer_schema",
        "legacy_to_blocks",
        "outcome_to_envelope",
    ),
}
_EXPORTS = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = [name for names in _PUBLIC.values() for name in names]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
