"""The contract: models and JSON Schemas for both protocols, imported by every capability.

The names below are re-exported lazily (PEP 562), so `from jp_migrate.contract.blocks
import TextBlock` loads the block models only, not the report, events or parse modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jp_migrate._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "AudioBlock": "jp_migrate.contract.blocks",
    "ContentBlock": "jp_migrate.contract.blocks",
    "Envelope": "jp_migrate.contract.blocks",
    "EnvelopeMeta": "jp_migrate.contract.blocks",
    "ErrorMeta": "jp_migrate.contract.blocks",
    "ImageBlock": "jp_migrate.contract.blocks",
    "InputRequest": "jp_migrate.contract.blocks",
    "LegacyQuestion": "jp_migrate.contract.outcome",
    "LegacyToolCallResponse": "jp_migrate.contract.events",
    "MigratedToolCallResponse": "jp_migrate.contract.events",
    "NormalizedOutcome": "jp_migrate.contract.normalized",
    "NormalizedQuestion": "jp_migrate.contract.normalized",
    "Outcome": "jp_migrate.contract.outcome",
    "OutcomeError": "jp_migrate.contract.outcome",
    "OutcomeNeedsInput": "jp_migrate.contract.outcome",
    "OutcomeSuccess": "jp_migrate.contract.outcome",
    "QuestionBlock": "jp_migrate.contract.blocks",
    "Report": "jp_migrate.contract.report",
    "Resource": "jp_migrate.contract.blocks",
    "ResourceBlock": "jp_migrate.contract.blocks",
    "SelectAnswer": "jp_migrate.contract.outcome",
    "TextBlock": "jp_migrate.contract.blocks",
    "answer_kind": "jp_migrate.contract.outcome",
    "dump": "jp_migrate.contract.parse",
    "load_json": "jp_migrate.contract.parse",
    "parse_block": "jp_migrate.contract.parse",
    "parse_envelope": "jp_migrate.contract.parse",
    "parse_legacy_response": "jp_migrate.contract.parse",
    "parse_migrated_response": "jp_migrate.contract.parse",
    "parse_normalized": "jp_migrate.contract.parse",
    "parse_outcome": "jp_migrate.contract.parse",
    "question_block": "jp_migrate.contract.blocks",
    "read_envelope": "jp_migrate.contract.parse",
    "text_block": "jp_migrate.contract.blocks",
    "try_outcome": "jp_migrate.contract.parse",
}

if TYPE_CHECKING:
    from jp_migrate.contract.blocks import (
        AudioBlock,
        ContentBlock,
        Envelope,
        EnvelopeMeta,
        ErrorMeta,
        ImageBlock,
        InputRequest,
        QuestionBlock,
        Resource,
        ResourceBlock,
        TextBlock,
        question_block,
        text_block,
    )
    from jp_migrate.contract.events import (
        LegacyToolCallResponse,
        MigratedToolCallResponse,
    )
    from jp_migrate.contract.normalized import (
        NormalizedOutcome,
        NormalizedQuestion,
    )
    from jp_migrate.contract.outcome import (
        LegacyQuestion,
        Outcome,
        OutcomeError,
        OutcomeNeedsInput,
        OutcomeSuccess,
        SelectAnswer,
        answer_kind,
    )
    from jp_migrate.contract.parse import (
        dump,
        load_json,
        parse_block,
        parse_envelope,
        parse_legacy_response,
        parse_migrated_response,
        parse_normalized,
        parse_outcome,
        read_envelope,
        try_outcome,
    )
    from jp_migrate.contract.report import (
        Report,
    )

__all__ = [
    "AudioBlock",
    "ContentBlock",
    "Envelope",
    "EnvelopeMeta",
    "ErrorMeta",
    "ImageBlock",
    "InputRequest",
    "LegacyQuestion",
    "LegacyToolCallResponse",
    "MigratedToolCallResponse",
    "NormalizedOutcome",
    "NormalizedQuestion",
    "Outcome",
    "OutcomeError",
    "OutcomeNeedsInput",
    "OutcomeSuccess",
    "QuestionBlock",
    "Report",
    "Resource",
    "ResourceBlock",
    "SelectAnswer",
    "TextBlock",
    "answer_kind",
    "dump",
    "load_json",
    "parse_block",
    "parse_envelope",
    "parse_legacy_response",
    "parse_migrated_response",
    "parse_normalized",
    "parse_outcome",
    "question_block",
    "read_envelope",
    "text_block",
    "try_outcome",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
