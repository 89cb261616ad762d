"""What RFD 058 deliberately changes in how an MCP result is shown, named for `verify`.

The legacy host joins a result's text and embedded resources raw and drops resource
links; the RFD 058 host formats resources as JP does (a fenced block, a binary
summary) and keeps links (read through `resources/read`, else a reference line).
So one server, unchanged, read by both hosts differs in presentation only, by
design. That is an expected difference when both hosts got the same result from
the server, each read it as its own rules say, and it holds resources or links.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jp_migrate.contract.normalized import NormalizedOutcome

RESOURCE_FORMATTED = "mcp-resource-formatted"
RESOURCE_LINK_KEPT = "mcp-resource-link-kept"
EXPLAINED = {
    RESOURCE_FORMATTED: "an embedded resource is shown as JP formats it (RFD 058), "
    "where the legacy host joined its contents raw",
    RESOURCE_LINK_KEPT: "a resource link is kept in its place, read through resources/read "
    "or as a reference (RFD 058), where the legacy host dropped it",
}
_SEMANTICS = ("status", "is_error", "transient", "trace")


def _same_result(control: Mapping[str, Any], candidate: Mapping[str, Any]) -> bool:
    keys = ("content", "isError")
    return all(control.get(key) == candidate.get(key) for key in keys)


def presentation_differences(
    control: NormalizedOutcome,
    candidate: NormalizedOutcome,
    control_wire: Mapping[str, Any] | None,
    candidate_wire: Mapping[str, Any] | None,
) -> tuple[str, ...]:
    """The names of RFD 058's presentation changes that explain every difference between
    the two readings of one MCP result; empty when they do not (or there is none)."""
    from jp_migrate.bridge.protocol import joined_text
    from jp_migrate.convert.render import render

    if control_wire is None or candidate_wire is None:
        return ()
    if (control.protocol, candidate.protocol) != ("mcp", "mcp"):
        return ()  # a D31 Outcome on either side is compared by its own rules
    if not _same_result(control_wire, candidate_wire):
        return ()  # the server answered differently: a real difference
    if any(getattr(control, f) != getattr(candidate, f) for f in _SEMANTICS):
        return ()
    items = control_wire.get("content") or []
    # Each side read as its host's rules say, nothing else.
    if control.text != joined_text(items) or candidate.text != render(candidate.content):
        return ()
    types = {item.get("type") for item in items if isinstance(item, Mapping)}
    names = []
    if "resource" in types:
        names.append(RESOURCE_FORMATTED)
    if "resource_link" in types:
        names.append(RESOURCE_LINK_KEPT)
    return tuple(names)
