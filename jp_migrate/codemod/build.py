"""libcst nodes for the RFD 058 shapes (SPEC §2), written in the file's own quoting style.

Nothing here decides anything: `mapping` says what to build, this says how
it is spelt. Values handed in are original expression nodes, carried over
untouched (never evaluated).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

ERROR_META_KEY = "computer.jp/error"


def string(text: str, quote: str) -> cst.SimpleString:
    return cst.SimpleString(f"{quote}{text}{quote}")


def quote_of(node: cst.BaseExpression | None) -> str:
    """The quote character the author used for a key (`"` when unknown or triple-quoted double)."""
    if isinstance(node, cst.SimpleString):
        return "'" if node.quote.startswith("'") else '"'
    return '"'


def dict_of(pairs: Sequence[tuple[str, cst.BaseExpression]], quote: str) -> cst.Dict:
    return cst.Dict([cst.DictElement(string(key, quote), value) for key, value in pairs])


def text_block(value: cst.BaseExpression, quote: str) -> cst.Dict:
    return dict_of([("type", string("text", quote)), ("text", value)], quote)


def text_blocks(value: cst.BaseExpression, quote: str) -> cst.List:
    """`[{"type": "text", "text": value}]`."""
    return cst.List([cst.Element(text_block(value, quote))])


def error_meta(pairs: Sequence[tuple[str, cst.BaseExpression]], quote: str) -> cst.Dict:
    """`{"computer.jp/error": {"transient": …, "trace": …}}`, keys in the author's order."""
    return dict_of([(ERROR_META_KEY, dict_of(pairs, quote))], quote)


def optional_text_block(
    value: cst.BaseExpression, quote: str, name: str = "pre_amble"
) -> cst.StarredElement:
    """`*[{"type": "text", "text": pre_amble} for pre_amble in [value] if pre_amble is not None]`.

    `value` is evaluated once, in the enclosing scope (a comprehension's first
    iterable is), and the name does not leak; the block only exists when the
    value is not None at runtime.
    """
    var = cst.Name(name)
    return cst.StarredElement(
        cst.ListComp(
            elt=text_block(var, quote),
            for_in=cst.CompFor(
                target=var,
                iter=cst.List([cst.Element(value)]),
                ifs=[
                    cst.CompIf(
                        cst.Comparison(var, [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])
                    )
                ],
            ),
        )
    )


def question_block(question: cst.BaseExpression, quote: str) -> cst.Dict:
    return dict_of([("type", string("question", quote)), ("question", question)], quote)


def schema(kind: str, quote: str, enum: cst.BaseExpression | None = None) -> cst.Dict:
    pairs: list[tuple[str, cst.BaseExpression]] = [("type", string(kind, quote))]
    if enum is not None:
        pairs.append(("enum", enum))
    return dict_of(pairs, quote)


def schema_of_held(name: cst.BaseExpression, quote: str) -> cst.IfExp:
    """The schema of an `answer_type` held in a variable, chosen when the tool runs:
    `{"type": "boolean"} if a in ("Boolean", {"Boolean": None}) else … "Text" …
    else {"type": "string", "enum": a["Select"]["options"]}` (reading a name again is inert)."""

    def equals(tag: str) -> cst.Comparison:
        # serde also reads a unit variant as a one-key map: {"Boolean": null}
        unit = dict_of([(tag, cst.Name("None"))], quote)
        either = cst.Tuple([cst.Element(string(tag, quote)), cst.Element(unit)])
        return cst.Comparison(name, [cst.ComparisonTarget(cst.In(), either)])

    options = cst.Subscript(
        cst.Subscript(name, [cst.SubscriptElement(cst.Index(string("Select", quote)))]),
        [cst.SubscriptElement(cst.Index(string("options", quote)))],
    )
    return cst.IfExp(
        test=equals("Boolean"),
        body=schema("boolean", quote),
        orelse=cst.IfExp(
            test=equals("Text"),
            body=schema("string", quote),
            orelse=schema("string", quote, options),
        ),
        lpar=[cst.LeftParen()],
        rpar=[cst.RightParen()],
    )


def question_of_held(name: cst.Name, quote: str) -> cst.List:
    """The content list of a question held in a name, built when the tool runs (the name may
    be built key by key, or changed before): its pre_amble as an optional text block, then the
    question without answer_type and pre_amble, with the schema its answer_type maps to."""
    q, s = name.value, quote
    answer = cst.parse_expression(f"{q}[{s}answer_type{s}]")
    pre = cst.parse_expression(f"{q}.get({s}pre_amble{s})")
    rest = cst.parse_expression(
        f"{{**{{k: v for k, v in {q}.items() if k not in ({s}answer_type{s}, {s}pre_amble{s})}}}}"
    )
    assert isinstance(rest, cst.Dict)
    question = rest.with_changes(
        elements=[
            *rest.elements[:-1],
            rest.elements[-1].with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            ),
            cst.DictElement(string("schema", quote), schema_of_held(answer, quote)),
        ]
    )
    return cst.List(
        [
            optional_text_block(pre, quote).with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            ),
            cst.Element(question_block(question, quote)),
        ]
    )


@dataclass(frozen=True)
class Layout:
    """Where a multi-line dict sits: the indent of its closing brace, and one level of indentation."""

    outer: str
    step: str


def multiline_layout(node: cst.BaseExpression) -> Layout | None:
    """The layout of a dict written over several lines (`{` then a newline), else None."""
    if not isinstance(node, cst.Dict):
        return None
    opening, closing = node.lbrace.whitespace_after, node.rbrace.whitespace_before
    if not (
        isinstance(opening, cst.ParenthesizedWhitespace)
        and isinstance(closing, cst.ParenthesizedWhitespace)
    ):
        return None
    outer, inner = closing.last_line.value, opening.last_line.value
    step = inner[len(outer) :] if inner.startswith(outer) and len(inner) > len(outer) else "    "
    return Layout(outer, step)


def _line_break(indent: str) -> cst.ParenthesizedWhitespace:
    return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(indent))


def multiline_list(elements: Sequence[cst.BaseElement], layout: Layout) -> cst.List:
    """`[` newline, one element per line one level deeper, trailing comma, `]` at the outer indent."""
    inner = layout.outer + layout.step
    laid = [
        e.with_changes(
            comma=cst.Comma(
                whitespace_after=_line_break(layout.outer if i == len(elements) - 1 else inner)
            )
        )
        for i, e in enumerate(elements)
    ]
    return cst.List(laid, lbracket=cst.LeftSquareBracket(whitespace_after=_line_break(inner)))


def indent_more(node: cst.BaseExpression, step: str) -> cst.BaseExpression:
    """`node` with every line break inside it indented one `step` deeper."""
    indented = _indented(node, step)
    assert isinstance(indented, cst.BaseExpression)  # the walk keeps each node's kind
    return indented


@functools.cache
def _node_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


def _indented(node: cst.CSTNode, step: str) -> cst.CSTNode:
    """A walk of the dataclass fields, rebuilding only what changed: several times faster
    than a `CSTTransformer`, which visits and rebuilds every node."""
    if type(node) is cst.ParenthesizedWhitespace:
        return node.with_changes(last_line=cst.SimpleWhitespace(node.last_line.value + step))
    names = _node_fields(type(node))
    changes: dict[str, object] = {}
    for name in names:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            new = _indented(value, step)
            if new is not value:
                changes[name] = new
        elif isinstance(value, (list, tuple)) and value:
            items = [_indented(v, step) if isinstance(v, cst.CSTNode) else v for v in value]
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[name] = type(value)(items)
    return node.with_changes(**changes) if changes else node
