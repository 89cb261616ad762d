"""The contract: models and JSON Schemas for both protocols, imported by every capability.

The names below are re-exported lazily (PEP 562), so `from jp_migrate.contract.blocks
import TextBlock` loads the block models only, not the report, events or parse modules.
"""

from __future__ import annotations

from jp_migrate._lazy import lazy_exports

_PUBLIC: dict[str, tuple[str, ...]] = {
    "jp_migrate.contract.blocks": (
        "AudioBlock",
        "ContentBlock",
        "Envelope",
        "EnvelopeMeta",
        "ErrorMeta",
        "ImageBlock",
        "InputRequest",
        "QuestionBlock",
        "Resource",
        "ResourceBlock",
        "TextBlock",
        "question_block",
        "text_block",
    ),
    "jp_migrate.contract.events": (
        "LegacyToolCallResponse",
        "MigratedToolCallResponse",
    ),
    "jp_migrate.contract.normalized": (
        "NormalizedOutcome",
        "NormalizedQuestion",
    ),
    "jp_migrate.contract.outcome": (
        "LegacyQuestion",
        "Outcome",
        "OutcomeError",
        "OutcomeNeedsInput",
        "OutcomeSuccess",
        "SelectAnswer",
        "answer_kind",
    ),
    "jp_migrate.contract.parse": (
        "dump",
        "load_json",
        "parse_block",
        "parse_envelope",
        "parse_legacy_response",
        "parse_migrated_response",
        "parse_normalized",
        "parse_outcome",
        "read_envelope",
        "try_outcome",
    ),
    "jp_migrate.contract.report": ("Report",),
}
_EXPORTS = {name: module for module, names in _PUBLIC.items() for name in names}
__all__ = [name for names in _PUBLIC.values() for name in names]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
