"""Blocks → the text the model sees (SPEC §2 "Rendering", a DECISION), one row per rule."""

from __future__ import annotations

from typing import Any

import pytest

from jp_migrate.contract.parse import parse_block
from jp_migrate.convert.render import fence, language_for_mime, mime_for_language, render


def res(**resource: Any) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": "file:///w/a.py", **resource}}


def rendered(*blocks: dict[str, Any]) -> str:
    return render([parse_block(b) for b in blocks])


ROWS: list[tuple[str, list[dict[str, Any]], str]] = [
    ("text block as-is", [{"type": "text", "text": "  a\n b  "}], "  a\n b  "),
    ("empty text block", [{"type": "text", "text": ""}], ""),
    ("no blocks", [], ""),
    (
        "text resource: fenced, language from mimeType",
        [res(mimeType="text/x-python", text="print(1)\n")],
        "```python\nprint(1)\n```",
    ),
    (
        "text resource without trailing newline gets one before the fence",
        [res(mimeType="application/json", text='{"a": 1}')],
        '```json\n{"a": 1}\n```',
    ),
    ("mimeType parameters are ignored", [res(mimeType="text/x-python; charset=utf-8", text="x")], "```python\nx\n```"),
    ("unknown mimeType: no tag", [res(mimeType="x-unknown/thing", text="x")], "```\nx\n```"),
    ("no mimeType: no tag", [res(text="x")], "```\nx\n```"),
    ("formatted on the block wins", [{**res(mimeType="text/x-python", text="x"), "formatted": "F"}], "F"),
    ("formatted on the resource wins (RFD 065)", [res(text="x", formatted="R")], "R"),
    (
        "formatted on the block wins over the resource's",
        [{"type": "resource", "resource": {"uri": "u", "text": "x", "formatted": "R"}, "formatted": "B"}],
        "B",
    ),
    (
        "blob: one placeholder line with uri, mimeType and byte size",
        [{"type": "resource", "resource": {"uri": "file:///w/logo.png", "mimeType": "image/png", "blob": "AAECAw=="}}],
        "[binary resource file:///w/logo.png (image/png, 4 bytes)]",
    ),
    (
        "blob without mimeType",
        [{"type": "resource", "resource": {"uri": "u", "blob": ""}}],
        "[binary resource u (unknown type, 0 bytes)]",
    ),
    (
        "question renders its text",
        [{"type": "question", "question": {"id": "q", "text": "Apply?", "schema": {"type": "boolean"}}}],
        "Apply?",
    ),
    (
        "blocks joined by a blank line",
        [
            {"type": "text", "text": "a"},
            res(mimeType="text/x-python", text="x = 1\n"),
            {"type": "question", "question": {"id": "q", "text": "ok?", "schema": {}}},
        ],
        "a\n\n```python\nx = 1\n```\n\nok?",
    ),
    (
        "images and audio are kept but not rendered",
        [
            {"type": "text", "text": "a"},
            {"type": "image", "data": "AA==", "mimeType": "image/png"},
            {"type": "audio", "data": "AA==", "mimeType": "audio/wav"},
            {"type": "text", "text": "b"},
        ],
        "a\n\nb",
    ),
    (
        "backticks inside content get a longer fence",
        [res(mimeType="text/markdown", text="```py\nx\n```\n")],
        "````markdown\n```py\nx\n```\n````",
    ),
    (
        "a run of five backticks needs six",
        [res(text="a ````` b")],
        "``````\na ````` b\n``````",
    ),
]


@pytest.mark.parametrize(("row", "blocks", "text"), ROWS, ids=[r[0] for r in ROWS])
def test_rendering(row: str, blocks: list[dict[str, Any]], text: str) -> None:
    assert rendered(*blocks) == text


@pytest.mark.parametrize(
    ("mime", "language"),
    [
        ("text/x-python", "python"),
        ("application/json", "json"),
        ("TEXT/X-PYTHON", "python"),
        ("text/x-rust", "rust"),
        ("text/markdown", "markdown"),  # registered type Pygments does not list: named by its subtype
        ("application/yaml", "yaml"),
        ("text/x-go", "go"),
        ("application/vnd.api+json", "json"),  # RFC 6839 structured syntax suffix
        ("image/png", None),
        ("application/octet-stream", None),
        ("x-unknown/thing", None),
        ("", None),
        (None, None),
    ],
)
def test_language_for_mime(mime: str | None, language: str | None) -> None:
    assert language_for_mime(mime) == language


@pytest.mark.parametrize("language", ["python", "json", "rust", "diff", "yaml"])
def test_mime_and_language_round_trip(language: str) -> None:
    mime = mime_for_language(language)
    assert mime is not None
    assert language_for_mime(mime) is not None


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert fence("``", None) == "```\n``\n```"
    assert fence("x\n", "rust") == "```rust\nx\n```"
