"""Store rule `store-file-resource`: a file-reading tool's fenced file content → a `resource` block.

Pure: it looks at the response text and the matching `tool_call_request` only.
Which tools, which argument holds the path and which excerpt markers a tool
adds are the rule file's `[match]` table (`rules/store-file-resource.toml`).
The block keeps the original text as `formatted`, so it renders exactly as the
legacy string did (SPEC §2 rendering; `upgrade_events` enforces it).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import quote

from jp_migrate.contract.blocks import ContentBlock, Resource, ResourceBlock
from jp_migrate.convert.render import mime_for_language
from jp_migrate.convert.store_rules import RuleContext, store_rule
from jp_migrate.rules.patterns import backtracking

RULE_ID = "store-file-resource"
_OPENING = re.compile(r"(`{3,})([^\s`]*)\n")


def parse_fence(text: str) -> tuple[str, str] | None:
    """(language, body) when `text` is exactly one fenced code block (a trailing newline allowed).

    The newline before the closing fence belongs to the fence (JP writes
    "```lang\n{content}\n```"), so the body is the file content as the tool read it.
    """
    opening = _OPENING.match(text)
    if opening is None:
        return None
    ticks, language = opening.group(1), opening.group(2)
    rest = text[opening.end() :]
    closing = "\n" + ticks
    if rest.startswith(ticks) and rest[len(ticks) :] in ("", "\n"):
        return language, ""  # an empty file
    for ending in (closing + "\n", closing):
        if rest.endswith(ending):
            body = rest[: -len(ending)]
            if re.search(rf"(?m)^{re.escape(ticks)}\s*$", body):
                return None  # a second fence inside: not one file's content
            return language, body
    return None


def strip_markers(body: str, markers: list[str]) -> str:
    """Remove a tool's excerpt marker lines (e.g. `... (starting from line #298) ...`).

    What is left of an excerpt is whole lines, so it ends with a newline.
    """
    patterns = [re.compile(m) for m in markers]
    lines = body.split("\n")
    stripped = False
    if lines and any(p.fullmatch(lines[0]) for p in patterns):
        lines.pop(0)
        stripped = True
    if lines and any(p.fullmatch(lines[-1]) for p in patterns):
        lines.pop()
        stripped = True
        if lines and lines[-1] == "":
            lines.pop()  # the blank line the tool puts before its marker
    if not stripped:
        return body
    return "\n".join(lines) + "\n" if lines else ""


def file_uri(root: str, path: str) -> str | None:
    """`file://` URI of `path` (relative to `root`, or absolute inside it); None when it escapes."""
    if not root.startswith("/") or not path or "\0" in path:
        return None
    base = posixpath.normpath(root)
    joined = posixpath.normpath(posixpath.join(base, path))
    if not PurePosixPath(joined).is_relative_to(base):
        return None
    return "file://" + quote(joined, safe="/")


_STRINGS = ("event", "path_argument", "default_mime_type", "example_root")
_STRING_LISTS = ("tools", "excerpt_markers")


def check_match(match: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first entry of `[match]` this rule cannot read: (key, reason), or None."""
    for key in _STRINGS:
        if key in match and not isinstance(match[key], str):
            return key, f"expected a string, got {type(match[key]).__name__}"
    for key in _STRING_LISTS:
        value = match.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return key, "expected a list of strings"
    for pattern in match.get("excerpt_markers", []):
        refused = backtracking(pattern)  # a repository's rule may hold any pattern
        if refused is not None:
            return "excerpt_markers", refused
    return None


@store_rule(RULE_ID, check_match)
def file_resource(context: RuleContext) -> list[ContentBlock] | None:
    match = context.match
    request = context.request
    if context.is_error or request is None or context.root is None:
        return None
    if request.get("name") not in match.get("tools", []):  # [match] as check_match allows
        return None
    arguments = request.get("arguments")
    path = (
        arguments.get(match.get("path_argument", "path")) if isinstance(arguments, dict) else None
    )
    if not isinstance(path, str):
        return None
    uri = file_uri(context.root, path)
    fenced = parse_fence(context.text)
    if uri is None or fenced is None:
        return None
    language, body = fenced
    body = strip_markers(body, match.get("excerpt_markers", []))
    mime = mime_for_language(language) if language else None
    resource = Resource(uri=uri, mimeType=mime or match.get("default_mime_type"), text=body)
    return [ResourceBlock(type="resource", resource=resource, formatted=context.text)]
