"""The conversion core: pure functions on contract models, no I/O.

The names below are re-exported lazily (PEP 562): importing one submodule
(`jp_migrate.convert.host`) does not load the others.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from jp_migrate._lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "EXPECTED_DIFFERENCES": "jp_migrate.convert.compare",
    "Comparison": "jp_migrate.convert.compare",
    "ToolRun": "jp_migrate.convert.host",
    "answer_schema": "jp_migrate.convert.upgrade",
    "blocks_outcome": "jp_migrate.convert.host",
    "compare": "jp_migrate.convert.compare",
    "decode_payload": "jp_migrate.convert.encoding",
    "downgrade": "jp_migrate.convert.render",
    "downgrade_response": "jp_migrate.convert.events",
    "encode_payload": "jp_migrate.convert.encoding",
    "envelope_semantics": "jp_migrate.convert.host",
    "is_migrated": "jp_migrate.convert.events",
    "is_response": "jp_migrate.convert.events",
    "language_for_mime": "jp_migrate.convert.render",
    "legacy_outcome": "jp_migrate.convert.host",
    "legacy_to_blocks": "jp_migrate.convert.upgrade",
    "mime_for_language": "jp_migrate.convert.render",
    "outcome_semantics": "jp_migrate.convert.host",
    "outcome_to_envelope": "jp_migrate.convert.upgrade",
    "raw_outcome": "jp_migrate.convert.host",
    "render": "jp_migrate.convert.render",
    "semantic_differences": "jp_migrate.convert.compare",
    "stored_payload_text": "jp_migrate.convert.events",
    "survives_downgrade": "jp_migrate.convert.events",
    "upgrade_response": "jp_migrate.convert.events",
}

if TYPE_CHECKING:
    from jp_migrate.convert.compare import (
        EXPECTED_DIFFERENCES,
        Comparison,
        compare,
        semantic_differences,
    )
    from jp_migrate.convert.encoding import (
        decode_payload,
        encode_payload,
    )
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
    from jp_migrate.convert.render import (
        downgrade,
        language_for_mime,
        mime_for_language,
        render,
    )
    from jp_migrate.convert.upgrade import (
        answer_schema,
        legacy_to_blocks,
        outcome_to_envelope,
    )

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


class _Package(types.ModuleType):
    """Keeps `render` and `compare` the functions when their submodules load.

    Loading `jp_migrate.convert.render` sets the package attribute `render` to
    the module; the eager re-exports used to shadow it with the function again.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and _EXPORTS.get(name) == value.__name__:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
