"""A dict literal or a `dict(...)` call as a list of (key, value) entries, and back again.

Rebuilding keeps the author's layout: an entry that came from an original
element keeps that element (its key quoting, its comma and any comment after
it); new entries borrow the separator the dict already uses between elements,
and the last entry keeps the original trailing comma (or its absence). A
comment after an entry that is gone (`"type": "success",  # tag`) moves to a
line of its own where that entry stood.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
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


def subscript_key(node: cst.Subscript) -> str | None:
    """The constant string key of `x["key"]`, else None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    return const_str(node.slice[0].slice.value)


def dict_entries(
    node: cst.Dict, key_of: Callable[[cst.BaseExpression], str | None] = const_str
) -> list[Entry]:
    """`key_of`: the string a key is (a literal; or a name holding one, see `constants`)."""
    out: list[Entry] = []
    for element in node.elements:
        if isinstance(element, cst.DictElement):
            out.append(Entry(key_of(element.key), element.value, element))
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
    return (
        dict_entries(node)
        if isinstance(node, cst.Dict)
        else call_entries(cst.ensure_type(node, cst.Call))
    )


def _plain(comma: cst.Comma) -> cst.Comma:
    """The same separator without any comment riding on it (a copy must not copy a comment)."""
    after = comma.whitespace_after
    if isinstance(after, cst.ParenthesizedWhitespace) and _has_comment(after):
        after = after.with_changes(
            first_line=after.first_line.with_changes(
                comment=None, whitespace=cst.SimpleWhitespace("")
            ),
            empty_lines=[line for line in after.empty_lines if line.comment is None],
        )
    return comma.with_changes(whitespace_after=after)


def _has_comment(whitespace: cst.BaseParenthesizableWhitespace) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace) and (
        whitespace.first_line.comment is not None
        or any(line.comment is not None for line in whitespace.empty_lines)
    )


def _merged(
    target: cst.BaseParenthesizableWhitespace, lost: cst.ParenthesizedWhitespace
) -> cst.BaseParenthesizableWhitespace:
    """`target` (a line break kept in the output) followed by the comments of `lost`, each on its own line."""
    if not isinstance(target, cst.ParenthesizedWhitespace):
        return lost  # `{"type": "success",  # tag` on the opening line: the break comes with it
    lines = list(lost.empty_lines)
    if lost.first_line.comment is not None:
        own = cst.EmptyLine(
            indent=target.indent, whitespace=target.last_line, comment=lost.first_line.comment
        )
        lines.insert(0, own)
    return target.with_changes(empty_lines=[*target.empty_lines, *lines])


def _keep_comments(
    original: cst.Dict | cst.Call, rebuilt: cst.Dict | cst.Call
) -> cst.Dict | cst.Call:
    """Comments riding on the comma of an entry that is gone (`"type": "success",  # tag`) are kept.

    Each moves, on a line of its own, to the line break before where the entry stood:
    after the nearest earlier entry whose comma is still there, or after the opening bracket.
    """
    old: Sequence[Item] = original.elements if isinstance(original, cst.Dict) else original.args
    new: list[Item] = list(rebuilt.elements if isinstance(rebuilt, cst.Dict) else rebuilt.args)
    at = {id(item.comma): i for i, item in enumerate(new)}  # where each original comma went
    opener = (
        rebuilt.lbrace.whitespace_after
        if isinstance(rebuilt, cst.Dict)
        else rebuilt.whitespace_before_args
    )
    kept_before: int | None = None  # index in `new` of the nearest earlier comma still there
    changed = False
    for item in old:
        comma = item.comma
        if not isinstance(comma, cst.Comma):
            continue
        if id(comma) in at:
            kept_before = at[id(comma)]
            continue
        lost = comma.whitespace_after
        if not (isinstance(lost, cst.ParenthesizedWhitespace) and _has_comment(lost)):
            continue
        changed = True
        if kept_before is None:
            opener = _merged(opener, lost)
        else:
            there = new[kept_before].comma
            assert isinstance(there, cst.Comma)
            new[kept_before] = new[kept_before].with_changes(
                comma=there.with_changes(whitespace_after=_merged(there.whitespace_after, lost))
            )
    if not changed:
        return rebuilt
    if isinstance(rebuilt, cst.Dict):
        return rebuilt.with_changes(
            elements=new, lbrace=rebuilt.lbrace.with_changes(whitespace_after=opener)
        )
    return rebuilt.with_changes(args=new, whitespace_before_args=opener)


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
        rebuilt: cst.Dict | cst.Call = node.with_changes(
            elements=_with_commas(node.elements, items, origins)
        )
    else:
        args = [_arg_item(e) for e in entries]
        rebuilt = node.with_changes(args=_with_commas(node.args, args, origins))
    return _keep_comments(node, rebuilt)
