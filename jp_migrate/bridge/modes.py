"""The host modes `bridge run --protocol` and `verify` accept (SPEC §1, §2; RFD D31 for MCP),
and a local run read by one without the models, when that reading is certain.

Kept apart from `protocol.py` (the model readings) so `bridge run --json` can
answer without loading pydantic.
"""

from __future__ import annotations

from typing import Any, Literal

from jp_migrate.convert.host import ToolRun, plain_legacy, plain_raw

HostMode = Literal["auto", "legacy", "blocks", "raw"]
HOST_MODES: tuple[HostMode, ...] = ("auto", "legacy", "blocks", "raw")


def plain_local(run: ToolRun, mode: HostMode) -> dict[str, Any] | None:
    """`interpret_local(run, mode).outcome` as its JSON fields, without pydantic; None when
    only the models can tell (an envelope, a question, a malformed Outcome, a cancelled run).

    Every field comes from `convert.host`'s rules; a plain reading never warns.
    """
    if run.cancelled or mode == "blocks":
        return None
    if mode == "raw":
        return plain_raw(run)
    return plain_legacy(run, envelope_is_raw=mode == "legacy")
