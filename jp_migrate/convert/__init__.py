"""The conversion core: pure functions on contract models, no I/O."""

from jp_migrate.convert.compare import EXPECTED_DIFFERENCES, Comparison, compare, semantic_differences
from jp_migrate.convert.encoding import decode_payload, encode_payload
from jp_migrate.convert.events import (
    downgrade_response,
    is_migrated,
    is_response,
    stored_payload_text,
    survives_downgrade,
    upgrade_response,
)
from jp_migrate.convert.host import (
    ToolRun,
    blocks_outcome,
    envelope_semantics,
    legacy_outcome,
    outcome_semantics,
    raw_outcome,
)
from jp_migrate.convert.render import downgrade, language_for_mime, mime_for_language, render
from jp_migrate.convert.upgrade import answer_schema, legacy_to_blocks, outcome_to_envelope

__all__ = [
    "EXPECTED_DIFFERENCES",
    "Comparison",
    "ToolRun",
    "answer_schema",
    "blocks_outcome",
    "compare",
    "decode_payload",
    "downgrade",
    "downgrade_response",
    "encode_payload",
    "envelope_semantics",
    "is_migrated",
    "is_response",
    "language_for_mime",
    "legacy_outcome",
    "legacy_to_blocks",
    "mime_for_language",
    "outcome_semantics",
    "outcome_to_envelope",
    "raw_outcome",
    "render",
    "semantic_differences",
    "stored_payload_text",
    "survives_downgrade",
    "upgrade_response",
]
