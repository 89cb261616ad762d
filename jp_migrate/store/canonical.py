"""JP's canonical file format, and minimal-change rewriting (SPEC §3 "Layout").

JP writes pretty JSON: 2-space indent, `": "`, non-ASCII raw, trailing newline.
orjson's OPT_INDENT_2 output plus "\\n" is that format byte for byte (pinned by a
test on the real corpus), so a canonical file is rewritten by dumping the new
events. A file that is not canonical (hand-edited, a float JP and orjson format
differently, …) is spliced instead: every event we did not migrate keeps its
exact bytes, and a migrated one is written in the style of the event it replaces.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from jp_migrate.contract.jsontext import TOO_DEEP
from jp_migrate.errors import ContractError


def pretty(value: Any) -> bytes:
    """`json.dumps(value, indent=2, ensure_ascii=False) + "\\n"`, fast."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n"
    except (orjson.JSONEncodeError, TypeError):  # e.g. an integer beyond 64 bits
        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def is_canonical(raw: bytes, events: list[Any]) -> bool:
    return pretty(events) == raw


def rewrite(raw: bytes, events: list[Any], replaced: Mapping[int, Any]) -> bytes:
    """The file with `replaced` events (index → new event) put in, every other byte kept."""
    return rewrite_keeping(raw, events, replaced)[0]


def rewrite_keeping(
    raw: bytes, events: list[Any], replaced: Mapping[int, Any]
) -> tuple[bytes, int]:
    """`rewrite`, and how many leading bytes the new file surely shares with `raw` (the
    bytes before the first replaced event where it is found in canonical form, else 0)."""
    if not replaced:
        return raw, len(raw)
    fast = splice_canonical(raw, events, replaced)
    if fast is not None:
        return fast
    return splice(raw.decode("utf-8"), replaced).encode("utf-8"), 0


def element(event: Any) -> bytes | None:
    """A top-level array element as JP writes it: newline, 2-space indent, pretty event."""
    try:
        return b"\n  " + orjson.dumps(event, option=orjson.OPT_INDENT_2).replace(b"\n", b"\n  ")
    except (orjson.JSONEncodeError, TypeError):
        return None


def _find(raw: bytes, needle: bytes, start: int) -> int:
    """`raw.find(needle, start)`, searching for a short prefix first (a much faster scan)."""
    head = needle[:64]
    at = raw.find(head, start)
    while at >= 0 and not raw.startswith(needle, at):
        at = raw.find(head, at + 1)
    return at


def splice_canonical(
    raw: bytes, events: list[Any], replaced: Mapping[int, Any]
) -> tuple[bytes, int] | None:
    """Replace each changed event where it sits in canonical form, and say where the first
    one began (every byte before it is kept); None when one is not found.

    Without a full dump, this costs a search per changed event (see `_canonical_spans`).
    """
    spans = _canonical_spans(raw, events, replaced)
    if not spans:
        return None
    out: list[bytes] = []
    cursor = 0
    for index, (at, end) in zip(sorted(replaced), spans, strict=True):
        new = element(replaced[index])
        if new is None:
            return None
        out.append(raw[cursor:at])
        out.append(new)
        cursor = end
    out.append(raw[cursor:])
    return b"".join(out), spans[0][0]


def _canonical_spans(
    raw: bytes, events: list[Any], indices: Iterable[int]
) -> list[tuple[int, int]] | None:
    """Where each of these events sits in canonical form, in index order; None if one does not.

    Found means the event's exact canonical bytes at a top-level element boundary
    (2-space indent, after the opening `[` or a `,`, followed by `,` or the
    closing newline). Only a file whose first element sits at JP's indent is
    searched: in one indented otherwise, an event nested in another (a copy of
    the response inside a fork, say) could read as top-level.
    """
    if not raw.startswith(b"[\n  {"):
        return None
    spans: list[tuple[int, int]] = []
    cursor = 0
    for index in sorted(indices):
        old = element(events[index])
        if old is None:
            return None
        at = _find(raw, old, cursor)
        end = at + len(old)
        if (
            at < 0
            or raw[end : end + 1] not in (b",", b"\n")
            or not (at == 1 or raw[at - 1 : at] == b",")  # `[` only opens the file
        ):
            return None
        spans.append((at, end))
        cursor = end
    return spans


def check_rewritable(raw: bytes, events: list[Any], indices: Iterable[int]) -> None:
    """The ContractError `rewrite` would raise for replacing these events, without
    building any: `--check` refuses what a real run refuses (a repeated field, a
    file nested too deeply to splice)."""
    indices = sorted(indices)
    if not indices or _canonical_spans(raw, events, indices) is not None:
        return
    _checked_spans(raw.decode("utf-8"), indices)


def element_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) character offsets of each element of a top-level JSON array."""
    decoder = json.JSONDecoder()
    spans: list[tuple[int, int]] = []
    index = _skip_ws(text, 0)
    if text[index : index + 1] != "[":
        raise ValueError("not a JSON array")
    index = _skip_ws(text, index + 1)
    if text[index : index + 1] == "]":
        return spans
    while True:
        _value, end = decoder.raw_decode(text, index)
        spans.append((index, end))
        index = _skip_ws(text, end)
        if text[index : index + 1] == ",":
            index = _skip_ws(text, index + 1)
            continue
        return spans


def _skip_ws(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def splice(text: str, replaced: Mapping[int, Any]) -> str:
    """`text` with each replaced element rewritten in its own style, every other byte kept.

    An element about to be replaced that repeats one of its fields is refused:
    the parsers kept only its last value, and JP's serde_json refuses the event.
    """
    spans = _checked_spans(text, sorted(replaced))
    out: list[str] = []
    cursor = 0
    for index in sorted(replaced):
        start, end = spans[index]
        out.append(text[cursor:start])
        out.append(_styled(replaced[index], text, start, end))
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _checked_spans(text: str, indices: list[int]) -> list[tuple[int, int]]:
    """The elements' spans, refusing a file too deep to splice and an element about to be
    replaced (`indices`) that repeats a field."""
    try:
        spans = element_spans(text)
    except RecursionError:
        raise ContractError(TOO_DEEP) from None
    for index in indices:
        start, end = spans[index]
        _no_repeated_field(text[start:end], index)
    return spans


def _no_repeated_field(element: str, index: int) -> None:
    if not element.startswith("{"):
        return
    fields: list[tuple[str, Any]] = json.loads(element, object_pairs_hook=lambda pairs: pairs)
    seen: set[str] = set()
    for key, _value in fields:
        if key in seen:
            raise ContractError(f"duplicate field `{key}`", field=f"[{index}]")
        seen.add(key)


def _styled(event: Any, text: str, start: int, end: int) -> str:
    """`event` serialized like the original element: pretty at its indent, or on one line."""
    original = text[start:end]
    if "\n" not in original:
        separators = (", ", ": ") if '": ' in original else (",", ":")
        return json.dumps(event, ensure_ascii=False, separators=separators)
    line_start = text.rfind("\n", 0, start) + 1
    indent = text[line_start:start] if text[line_start:start].isspace() else ""
    newline = "\r\n" if "\r\n" in original else "\n"
    dumped = json.dumps(event, indent=_indent_unit(original), ensure_ascii=False)
    return dumped.replace("\n", newline + indent)


def _indent_unit(original: str) -> str:
    """One level of the element's indentation (spaces or tabs): its first inner line's
    leading whitespace beyond its closing line's; two spaces when that says nothing."""
    lines = original.split("\n")
    if len(lines) < 2:
        return "  "
    inner, closing = (_leading(line) for line in (lines[1], lines[-1]))
    unit = inner[len(closing) :] if inner.startswith(closing) else ""
    return unit or "  "


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]
