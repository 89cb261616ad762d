"""The host modes `bridge run --protocol` and `verify` accept (SPEC §1, §2; RFD D31 for MCP),
and a local run read by one without the models, when that reading is certain.

Kept apart from `protocol.py` (the model readings) so `bridge run --json` can
answer without loading pydantic.
"""

from __future__ import annotations

from typing import Any, Literal

from jp_migrate.convert.host import (
    ToolRun,
    is_outcome_candidate,
    plain_blocks,
    plain_legacy,
    plain_raw,
)

HostMode = Literal["auto", "legacy", "blocks", "raw"]
HOST_MODES: tuple[HostMode, ...] = ("auto", "legacy", "blocks", "raw")


def plain_local(run: ToolRun, mode: HostMode) -> dict[str, Any] | None:
    """`protocol.interpret_local(run, mode).outcome` as its JSON fields, without pydantic;
    None when only the models can tell (a question, a block other than plain text,
    `_meta`, a malformed Outcome, a cancelled run). A plain reading never warns.

    Every field comes from `convert.host`'s rules; `auto` detects as `interpret_local` does.
    """
    if run.cancelled:
        return None
    if mode == "raw":
        return plain_raw(run)
    if mode == "legacy" or (mode == "auto" and is_outcome_candidate(run)):
        return plain_legacy(run)
    return plain_blocks(run)
