"""Which host reads a run, and how (SPEC §1, §2, §5; RFD D31 for MCP).

Local tools reuse `jp_migrate.convert.host`. MCP results are read three ways:
the legacy host (D31 speculative `Outcome` unwrap, else text joined), the
RFD 058 host (typed blocks), and `auto` (the unwrap when its guard holds,
else typed blocks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jp_migrate.bridge.modes import HostMode
from jp_migrate.contract.blocks import ContentBlock, Envelope
from jp_migrate.contract.normalized import NormalizedOutcome, NormalizedQuestion
from jp_migrate.contract.outcome import OutcomeSuccess
from jp_migrate.contract.parse import (
    parse_block,
    read_envelope,
    try_outcome,
    valid_envelope_fields,
)
from jp_migrate.convert.host import (
    Normalized,
    ToolRun,
    blocks_outcome,
    envelope_semantics,
    legacy_outcome,
    outcome_semantics,
    raw_outcome,
)
from jp_migrate.errors import ContractError

# What JP's legacy MCP path keeps when it joins a result into one string (SPEC §1).
_JOINED_TYPES = ("text", "resource")


def interpret_local(run: ToolRun, mode: HostMode) -> Normalized:
    """A local run read by the host `mode` names; `auto` detects Outcome, envelope, raw."""
    if mode == "legacy":
        return legacy_outcome(run)
    if mode == "blocks":
        return blocks_outcome(run)
    if mode == "raw":
        return Normalized(raw_outcome(run))
    if not run.cancelled and try_outcome(run.stdout) is not None:
        return legacy_outcome(run)
    if not run.cancelled and read_envelope(run.stdout) is not None:
        return blocks_outcome(run)
    return Normalized(raw_outcome(run))


LINK = "resource_link"
LEGACY_DROPS_LINK = "JP's legacy host drops resource links (RFD 058 keeps them)"


def link_reference(item: Mapping[str, Any]) -> str:
    """A resource link that was not read, as one line: its uri, name and mimeType."""
    mime = item.get("mimeType") or "unknown type"
    return f"[resource link {item.get('uri')} ({item.get('name')}, {mime})]"


def _link_blocks(
    index: int, item: Mapping[str, Any], links: Mapping[int, Sequence[Mapping[str, Any]]] | None
) -> list[ContentBlock]:
    """A resource link in its place, as the RFD 058 host shows it: what `resources/read`
    gave for it (`links`), else a one-line reference."""
    if links is not None and index in links:
        return [parse_block({"type": "resource", "resource": dict(c)}) for c in links[index]]
    return [parse_block({"type": "text", "text": link_reference(item)})]


def _typed_blocks(
    items: Sequence[Any], links: Mapping[int, Sequence[Mapping[str, Any]]] | None = None
) -> tuple[list[ContentBlock], list[str]]:
    """The items as blocks. `links` None: the legacy host, which drops resource links;
    else the RFD 058 host, which keeps them (read, or as a reference)."""
    blocks: list[ContentBlock] = []
    warnings: list[str] = []
    for index, item in enumerate(items):
        try:
            if isinstance(item, Mapping) and item.get("type") == LINK:
                if links is None:
                    warnings.append(
                        f"content[{index}]: {LINK} {item.get('uri')} dropped: {LEGACY_DROPS_LINK}"
                    )
                    continue
                blocks += _link_blocks(index, item, links)
                continue
            blocks.append(parse_block(item) if isinstance(item, Mapping) else _not_object())
        except ContractError as exc:
            kind = item.get("type") if isinstance(item, Mapping) else type(item).__name__
            warnings.append(f"content[{index}]: {kind} item not kept as a block: {exc}")
    return blocks, warnings


def _not_object() -> Any:
    raise ContractError("expected a JSON object")


def joined_text(items: Sequence[Any]) -> str:
    """JP's legacy MCP result string: text and embedded resource contents joined by a blank line."""
    parts: list[str] = []
    for item in items:
        if not isinstance(item, Mapping) or item.get("type") not in _JOINED_TYPES:
            continue  # image, audio and resource_link are dropped
        if item["type"] == "text" and isinstance(item.get("text"), str):
            parts.append(item["text"])
        elif item["type"] == "resource" and isinstance(item.get("resource"), Mapping):
            resource = item["resource"]
            value = resource.get("text", resource.get("blob"))
            if isinstance(value, str):
                parts.append(value)
    return "\n\n".join(parts)


def _run(name: str, stdout: str, stderr: str) -> ToolRun:
    return ToolRun(name=name, stdout=stdout, stderr=stderr, exit_code=None)


def _plain_mcp(result: Mapping[str, Any], name: str, stderr: str) -> Normalized:
    items = list(result.get("content") or [])
    blocks, warnings = _typed_blocks(items)
    is_error = bool(result.get("isError", False))
    outcome = NormalizedOutcome.model_validate(
        {
            "protocol": "mcp",
            "status": "completed",
            "is_error": is_error,
            "transient": False,
            "trace": [],
            "content": blocks,
            "questions": [],
            "text": joined_text(items),
            "exit_code": None,
            "stderr": stderr,
        }
    )
    return Normalized(outcome, warnings)


def _d31_unwrap(result: Mapping[str, Any], name: str, stderr: str) -> Normalized | None:
    """RFD D31: exactly one text item that parses as an `Outcome`; `isError` wins over Success."""
    items = result.get("content") or []
    if len(items) != 1 or not isinstance(items[0], Mapping) or items[0].get("type") != "text":
        return None
    text = items[0].get("text")
    outcome = try_outcome(text) if isinstance(text, str) else None
    if outcome is None or not isinstance(text, str):
        return None
    if result.get("isError") and isinstance(outcome, OutcomeSuccess):
        plain = _plain_mcp(result, name, stderr)
        plain.warnings.append(
            "isError is true but the text is Outcome::Success: treated as an error (RFD D31)"
        )
        return plain
    normalized = outcome_semantics(
        outcome, raw_text=text, protocol="mcp-outcome", run=_run(name, text, stderr)
    )
    return Normalized(normalized)


def _blocks_mcp(
    result: Mapping[str, Any],
    name: str,
    stderr: str,
    links: Mapping[int, Sequence[Mapping[str, Any]]],
) -> Normalized:
    blocks, warnings = _typed_blocks(list(result.get("content") or []), links)
    meta = result.get("_meta")
    kept = valid_envelope_fields({"_meta": meta} if isinstance(meta, Mapping) else {}, warnings)
    envelope = Envelope.model_validate(
        {"content": [], "isError": bool(result.get("isError", False)), **kept},
        by_alias=True,
        by_name=False,
    )
    envelope.content = blocks
    return Normalized(
        envelope_semantics(envelope, protocol="mcp", run=_run(name, "", stderr)), warnings
    )


def interpret_mcp(
    result: Mapping[str, Any],
    name: str,
    mode: HostMode,
    *,
    stderr: str = "",
    links: Mapping[int, Sequence[Mapping[str, Any]]] | None = None,
) -> Normalized:
    """A `tools/call` result (its wire JSON) read by the host `mode` names; `links` holds
    what `resources/read` gave for its resource links (the RFD 058 host's reading)."""
    normalized = _interpreted(result, name, mode, stderr, links or {})
    if result.get("structuredContent") is not None:
        normalized.warnings.append(
            "structuredContent not kept: JP reads the content items (MCP asks a tool to "
            "return its structured content as a text item too)"
        )
    return normalized


def _interpreted(
    result: Mapping[str, Any],
    name: str,
    mode: HostMode,
    stderr: str,
    links: Mapping[int, Sequence[Mapping[str, Any]]],
) -> Normalized:
    if mode in ("legacy", "auto"):
        unwrapped = _d31_unwrap(result, name, stderr)
        if unwrapped is not None:
            return unwrapped
    if mode in ("legacy", "raw"):
        return _plain_mcp(result, name, stderr)
    return _blocks_mcp(result, name, stderr, links)


def input_required_outcome(
    questions: Sequence[NormalizedQuestion], *, stderr: str = ""
) -> NormalizedOutcome:
    """An MCP `input_required` result (2026-07-28): questions only, nothing to render yet."""
    return NormalizedOutcome.model_validate(
        {
            "protocol": "mcp-input-required",
            "status": "needs_input",
            "is_error": False,
            "transient": False,
            "trace": [],
            "content": [],
            "questions": [q.model_dump(by_alias=True) for q in questions],
            "text": "",
            "exit_code": None,
            "stderr": stderr,
        }
    )
