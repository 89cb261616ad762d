"""Blocks → the single string the model sees (SPEC §2 "Rendering", a DECISION)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jp_migrate.contract.blocks import ContentBlock

# The block models load on first render: `join_rendered` needs none (convert.host's plain readings).

SEPARATOR = "\n\n"


@cache
def _mime_table() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """mimeType → fence tag, fence tag → mimeType, and any lexer alias → its fence tag.

    Reads Pygments' static mapping, so no lexer module is imported.
    """
    from pygments.lexers._mapping import LEXERS

    by_mime: dict[str, str] = {}
    by_alias: dict[str, str] = {}
    tags: dict[str, str] = {}
    for _module, _name, aliases, _filenames, mimetypes in LEXERS.values():
        if not aliases:
            continue
        for mime in mimetypes:
            by_mime.setdefault(mime.lower(), aliases[0])
        for alias in aliases:
            tags.setdefault(alias.lower(), aliases[0])
            if mimetypes:
                by_alias.setdefault(alias.lower(), mimetypes[0])
    return by_mime, by_alias, tags


def _subtype_names(essence: str) -> list[str]:
    """`text/x-go` → go; `application/ld+json` → ld+json, json (RFC 6839 suffix)."""
    subtype = essence.partition("/")[2]
    names = [subtype]
    for prefix in ("x-", "vnd."):
        if subtype.startswith(prefix):
            names.append(subtype[len(prefix) :])
    if "+" in subtype:
        names.append(subtype.rsplit("+", 1)[1])
    return names


def language_for_mime(mime: str | None) -> str | None:
    """The code-fence language tag for a mimeType, or None when unknown.

    Pygments' mimeType table first; a type it does not list (`text/markdown`,
    `application/yaml`) gets the lexer its subtype names, if any.
    """
    if not mime:
        return None
    essence = mime.split(";", 1)[0].strip().lower()
    by_mime, _, tags = _mime_table()
    if essence in by_mime:
        return by_mime[essence]
    if not essence.startswith(("text/", "application/")):
        return None  # image/png is not the PNG "language"
    return next((tags[name] for name in _subtype_names(essence) if name in tags), None)


def mime_for_language(language: str) -> str | None:
    """The mimeType a fence's language tag stands for, or None when unknown."""
    return _mime_table()[1].get(language.strip().lower()) if language.strip() else None


_BACKTICKS = re.compile(r"`{3,}")


def fence(text: str, language: str | None) -> str:
    """A fenced code block longer than any backtick run inside `text`."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=2)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") else text + "\n"
    return f"{ticks}{language or ''}\n{body}{ticks}"


def _blob_size(blob: str) -> int:
    try:
        return len(base64.b64decode(blob, validate=True))
    except (binascii.Error, ValueError):
        return len(blob) * 3 // 4


def render_block(block: ContentBlock) -> str | None:
    """One block's text, or None for blocks that are kept but not rendered."""
    from jp_migrate.contract.blocks import (
        AudioBlock,
        ImageBlock,
        QuestionBlock,
        ResourceBlock,
        TextBlock,
    )

    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, QuestionBlock):
        return block.question.text
    if isinstance(block, ResourceBlock):
        resource = block.resource
        formatted = block.formatted if block.formatted is not None else resource.formatted
        if formatted is not None:
            return formatted
        if resource.text is not None:
            return fence(resource.text, language_for_mime(resource.mimeType))
        mime = resource.mimeType or "unknown type"
        return f"[binary resource {resource.uri} ({mime}, {_blob_size(resource.blob or '')} bytes)]"
    if isinstance(block, ImageBlock | AudioBlock):
        return None
    raise TypeError(f"not a content block: {type(block).__name__}")


def render(blocks: Iterable[ContentBlock]) -> str:
    """Rendered blocks joined with a blank line; a lone text block renders to exactly its text."""
    return join_rendered(render_block(b) for b in blocks)


def join_rendered(parts: Iterable[str | None]) -> str:
    """Blocks' renderings joined with a blank line; None (kept, not rendered) is left out."""
    return SEPARATOR.join(p for p in parts if p is not None)


def downgrade(blocks: Sequence[ContentBlock]) -> str:
    """Blocks → the legacy `Result<String, String>` payload: the rendering (SPEC §2, §3)."""
    return render(blocks)
