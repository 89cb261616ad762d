"""Blocks → the single string the model sees (SPEC §2 "Rendering", a DECISION)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Sequence
from functools import cache

from jp_migrate.contract.blocks import (
    AudioBlock,
    ContentBlock,
    ImageBlock,
    QuestionBlock,
    ResourceBlock,
    TextBlock,
)

SEPARATOR = "\n\n"


@cache
def _mime_table() -> tuple[dict[str, str], dict[str, str]]:
    """mimeType → fence tag, and fence tag → mimeType, from Pygments' lexer table.

    Reads Pygments' static mapping, so no lexer module is imported.
    """
    from pygments.lexers._mapping import LEXERS

    by_mime: dict[str, str] = {}
    by_alias: dict[str, str] = {}
    for _module, _name, aliases, _filenames, mimetypes in LEXERS.values():
        if not aliases:
            continue
        for mime in mimetypes:
            by_mime.setdefault(mime.lower(), aliases[0])
        if mimetypes:
            for alias in aliases:
                by_alias.setdefault(alias.lower(), mimetypes[0])
    return by_mime, by_alias


def language_for_mime(mime: str | None) -> str | None:
    """The code-fence language tag for a mimeType, or None when unknown."""
    if not mime:
        return None
    essence = mime.split(";", 1)[0].strip().lower()
    return _mime_table()[0].get(essence)


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
    parts = (render_block(b) for b in blocks)
    return SEPARATOR.join(p for p in parts if p is not None)


def downgrade(blocks: Sequence[ContentBlock]) -> str:
    """Blocks → the legacy `Result<String, String>` payload: the rendering (SPEC §3)."""
    return render(blocks)
