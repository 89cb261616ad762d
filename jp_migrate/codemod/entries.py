"""A dict literal or a `dict(...)` call as a list of (key, value) entries, and back again.

Rebuilding keeps the author's layout: an entry that came from an original
element keeps that element (its key quoting, its comma and any comment after
it); new entries borrow the separator the dict already uses between elements,
and the last entry keeps the original trailing comma (or its absence).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

Item = cst.DictElement | cst.StarredDictElement | cst.Arg


@dataclass(frozen=True)
class Entry:
    key: str | None  # None: `**spread`, a positional argument or a non-constant key
    value: cst.BaseExpression
    item: Item


@dataclass(frozen=True)
class NewEntry:
    key: str
    value: cst.BaseExpression
    origin: Entry | None = None


def literal_value(node: cst.SimpleString) -> str | bytes:
    """A string literal's value; the common case (no prefix, no escape) without `ast.literal_eval`."""
    raw = node.value
    if "\\" not in raw and raw[0] in "\"'":  # no prefix, no escapes: the text between the quotes
        quote = 3 if raw[:3] in ('"""', "'''") else 1
        return raw[quote:-quote]
    return node.evaluated_value


def const_str(node: cst.BaseExpression | None) -> str | None:
    """The value of a plain (non-f, non-bytes) string literal, else None."""
    if type(node) is cst.SimpleString:
        value = literal_value(node)
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def dict_entries(node: cst.Dict) -> list[Entry]:
    out: list[Entry] = []
    for element in node.elements:
        if isinstance(element, cst.DictElement):
            out.append(Entry(const_str(element.key), element.value, element))
        else:
            out.append(Entry(None, element.value, element))
    return out


def call_entries(node: cst.Call) -> list[Entry]:
    return [
        Entry(
            arg.keyword.value if arg.keyword is not None and not arg.star else None, arg.value, arg
        )
        for arg in node.args
    ]


def entries_of(node: cst.BaseExpression) -> list[Entry]:
    return dict_entries(node) if isinstance(node, cst.Dict) else call_entries(node)  # type: ignore[arg-type]


def _plain(comma: cst.Comma) -> cst.Comma:
    """The same separator without any comment riding on it."""
    after = comma.whitespace_after
    if isinstance(after, cst.ParenthesizedWhitespace) and after.first_line.comment is not None:
        after = after.with_changes(
            first_line=after.first_line.with_changes(
                comment=None, whitespace=cst.SimpleWhitespace("")
            )
        )
    return comma.with_changes(whitespace_after=after)


def _separators(items: Sequence[Item]) -> tuple[cst.Comma, cst.Comma | cst.MaybeSentinel]:
    between = next(
        (_plain(i.comma) for i in items[:-1] if isinstance(i.comma, cst.Comma)),
        cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")),
    )
    last = items[-1].comma if items else cst.MaybeSentinel.DEFAULT
    return between, last


def _dict_item(entry: NewEntry, quote_key: cst.BaseExpression) -> Item:
    origin = entry.origin
    if origin is not None and isinstance(origin.item, cst.DictElement):
        key = origin.item.key if origin.key == entry.key else quote_key
        return origin.item.with_changes(key=key, value=entry.value)
    return cst.DictElement(quote_key, entry.value)


def _arg_item(entry: NewEntry) -> Item:
    origin = entry.origin
    if origin is not None and isinstance(origin.item, cst.Arg):
        keyword = origin.item.keyword if origin.key == entry.key else cst.Name(entry.key)
        return origin.item.with_changes(keyword=keyword, value=entry.value)
    return cst.Arg(
        entry.value,
        keyword=cst.Name(entry.key),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")),
    )


def _with_commas(
    original: Sequence[Item], new: list[Item], origins: list[Entry | None]
) -> list[Item]:
    between, last = _separators(original)
    original_last = original[-1] if original else None
    out: list[Item] = []
    for i, (item, origin) in enumerate(zip(new, origins, strict=True)):
        if i == len(new) - 1:
            comma: cst.Comma | cst.MaybeSentinel = last
        elif (
            origin is not None
            and origin.item is not original_last
            and isinstance(origin.item.comma, cst.Comma)
        ):
            comma = origin.item.comma
        else:
            comma = between
        out.append(item.with_changes(comma=comma))
    return out


def rebuild(node: cst.Dict | cst.Call, entries: list[NewEntry], quote: str) -> cst.Dict | cst.Call:
    origins = [e.origin for e in entries]
    if isinstance(node, cst.Dict):
        items = [_dict_item(e, cst.SimpleString(f"{quote}{e.key}{quote}")) for e in entries]
        return node.with_changes(elements=_with_commas(node.elements, items, origins))
    args = [_arg_item(e) for e in entries]
    return node.with_changes(args=_with_commas(node.args, args, origins))
