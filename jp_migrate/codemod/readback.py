"""Reads of a legacy Outcome's keys rewritten into reads of the RFD 058 envelope.

| legacy read (on a name)     | envelope read                                                    |
|-----------------------------|------------------------------------------------------------------|
| `r["type"] == "error"`      | `r.get("isError") is True` (`!=`: `is not True`)                 |
| `r["type"] == "needs_input"`| `any(b.get("type") == "question" for b in r["content"])`        |
| `r["type"] == "success"`    | `(not r.get("isError") and not any(… "question" …))`             |
| `r["content"]`, `r["message"]` | `"".join(b["text"] for b in r["content"] if b.get("type") == "text")` |
| `r["trace"]`, `r["transient"]` | `r["_meta"]["computer.jp/error"]["trace"]`                     |

`r.get("type")` compares like `r["type"]`. Only a plain name is read this way
(it is evaluated more than once, which only a name's read cannot be told
from). Any other shape returns None: the read stays a reported site. A read
made on the wrong tag (`r["content"]` of an error) raised `KeyError` before
and now gives the error's text.
"""

from __future__ import annotations

import libcst as cst
import libcst.matchers as m

from jp_migrate.codemod.build import ERROR_META_KEY
from jp_migrate.codemod.entries import const_str, subscript_key
from jp_migrate.codemod.mapping import TAGS

_TEXT_KEYS = frozenset({"content", "message"})
_META_KEYS = frozenset({"trace", "transient"})
MAPPED_KEYS = _TEXT_KEYS | _META_KEYS


def _quote(node: cst.BaseExpression) -> str:
    """The quote of the key the author wrote (inside an f-string the other one is taken)."""
    if isinstance(node, cst.SimpleString) and node.value[-1:] == "'":
        return "'"
    return '"'


def _key_of(node: cst.Subscript) -> cst.BaseExpression:
    index = node.slice[0].slice
    assert isinstance(index, cst.Index)
    return index.value


def key_read(node: cst.Subscript) -> cst.BaseExpression | None:
    """`r["content"]` → its envelope read, when the shape is one the table knows."""
    key = subscript_key(node)
    if key not in MAPPED_KEYS or not isinstance(node.value, cst.Name):
        return None
    r, q = node.value.value, _quote(_key_of(node))
    if key in _TEXT_KEYS:
        text = (
            f"{q}{q}.join(block[{q}text{q}] for block in {r}[{q}content{q}] "
            f"if block.get({q}type{q}) == {q}text{q})"
        )
        return cst.parse_expression(text)
    return cst.parse_expression(f"{r}[{q}_meta{q}][{q}{ERROR_META_KEY}{q}][{q}{key}{q}]")


# `r.get("type")`, `r` a name.
_GET_TYPE = m.Call(
    func=m.Attribute(value=m.SaveMatchedNode(m.Name(), "r"), attr=m.Name("get")),
    args=[m.Arg(m.MatchIfTrue(lambda value: const_str(value) == "type"))],
)


def type_operand(node: cst.BaseExpression) -> cst.Name | None:
    """The name `r` of `r["type"]` or `r.get("type")`, else None."""
    if isinstance(node, cst.Subscript):
        value = node.value
        return value if isinstance(value, cst.Name) and subscript_key(node) == "type" else None
    got = m.extract(node, _GET_TYPE) if isinstance(node, cst.Call) else None
    return cst.ensure_type(got["r"], cst.Name) if got is not None else None


def tag_test(comparison: cst.Comparison) -> tuple[cst.Name, cst.BaseExpression] | None:
    """`r["type"] == "error"` (or `"error" != r.get("type")`) → (r, the envelope test)."""
    if len(comparison.comparisons) != 1:
        return None
    target = comparison.comparisons[0]
    operator = target.operator
    if not isinstance(operator, (cst.Equal, cst.NotEqual)):
        return None
    left, right = comparison.left, target.comparator
    name, tag_node = type_operand(left), right
    if name is None:
        name, tag_node = type_operand(right), left
    tag = const_str(tag_node)
    if name is None or tag not in TAGS:
        return None
    r, q = name.value, _quote(tag_node)
    asks = f"any(block.get({q}type{q}) == {q}question{q} for block in {r}[{q}content{q}])"
    fails = f"{r}.get({q}isError{q})"
    equal = isinstance(operator, cst.Equal)
    if tag == "error":
        test = f"{fails} is True" if equal else f"{fails} is not True"
    elif tag == "needs_input":
        test = asks if equal else f"(not {asks})"
    else:
        success = f"not {fails} and not {asks}"
        test = f"({success})" if equal else f"(not ({success}))"
    built = cst.parse_expression(test)
    if comparison.lpar and not built.lpar:
        built = built.with_changes(lpar=comparison.lpar, rpar=comparison.rpar)
    return name, built
