"""Command templates rendered the way JP renders them (SPEC §1 "Running a local tool").

minijinja is the engine JP uses; the finalizer reproduces JP's formatter:
strings, numbers and bools raw, maps and lists as compact JSON (serde_json's,
numbers included: `1e20`, not Python's `1e+20`), none and undefined as `null`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from jp_migrate.bridge.errors import BridgeError
from jp_migrate.contract.jsontext import dumps_compact


def _format(value: Any) -> Any:
    if value is None:  # none and undefined both arrive as None
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # includes Markup from `tojson` and friends
        return str(value)
    if isinstance(value, int | float):
        # minijinja's own rendering, as JP's: the binding hands us 2.0 as the int 2,
        # where the engine itself writes `2.0`.
        return NotImplemented
    if isinstance(value, Mapping | list | tuple):
        return dumps_compact(value, default=str)
    return str(value)


@cache
def _environment() -> Any:
    import minijinja

    return minijinja.Environment(finalizer=_format, keep_trailing_newline=True)


def render(template: str, context: Mapping[str, Any], *, source: str = "") -> str:
    """Render one template; a syntax or evaluation error becomes one BridgeError."""
    import minijinja

    try:
        return str(_environment().render_str(template, **dict(context)))
    except minijinja.TemplateError as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else "invalid template"
        raise BridgeError(f"template error in {template!r}: {detail}", source=source) from None


def tool_context(
    name: str,
    arguments: Mapping[str, Any],
    answers: Mapping[str, Any],
    options: Mapping[str, Any],
    root: Path,
    *,
    workspace_id: str | None = None,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """The context a command template sees (SPEC §1); the same blob feeds MCP `_meta` (D31)."""
    return {
        "tool": {
            "name": name,
            "arguments": dict(arguments),
            "answers": dict(answers),
            "options": dict(options),
        },
        "context": {
            "action": "run",
            "root": str(root),
            "access": None,
            "workspace_id": workspace_id,
            "conversation_id": conversation_id,
        },
    }
