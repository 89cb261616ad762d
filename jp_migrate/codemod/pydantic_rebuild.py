"""The nodes of a pydantic Outcome family, rebuilt (see `pydantic_models`): the classes'
fields, the question's construction, the dumps and the import of `Field`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst

from jp_migrate.codemod import build
from jp_migrate.codemod.entries import NewEntry
from jp_migrate.codemod.mapping import answer_schema, shaped_like_dict_call
from jp_migrate.codemod.pydantic_family import Model
from jp_migrate.codemod.sites import DICT_CALL

SCHEMA_FIELD = "answer_schema"
EQUAL = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
QUOTE = '"'


def keyword_of(arg: cst.Arg) -> str | None:
    return arg.keyword.value if arg.keyword is not None and not arg.star else None


def comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def commas(args: Sequence[cst.Arg]) -> list[cst.Arg]:
    """Keeps each argument's own comma (and what follows it) but the last one's."""
    out = list(args)
    for index, arg in enumerate(out[:-1]):
        if not isinstance(arg.comma, cst.Comma):
            out[index] = arg.with_changes(comma=comma())
    if out and isinstance(out[-1].comma, cst.Comma):
        out[-1] = out[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return out


def pre_amble_block(value: cst.BaseExpression) -> cst.BaseElement:
    """A string written out is one text block; anything else one when it is not None."""
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return cst.Element(build.text_block(value, QUOTE))
    return build.optional_text_block(value, QUOTE)


def meta_named(entry: NewEntry) -> NewEntry:
    return dataclasses.replace(entry, key="meta") if entry.key == "_meta" else entry


def unchanged(updated: cst.CSTNode) -> cst.CSTNode:
    return updated


def _line(code: str, like: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    parsed = cst.parse_statement(code)
    assert isinstance(parsed, cst.SimpleStatementLine)
    return like.with_changes(body=parsed.body)


def envelope_fields(
    like: cst.SimpleStatementLine, errors: bool, field: str
) -> list[cst.SimpleStatementLine]:
    lines = [_line("content: list[dict]", like)]
    if errors:
        after = like.with_changes(leading_lines=())
        lines += [
            _line("isError: bool | None = None", after),
            _line(f'meta: dict | None = {field}(default=None, serialization_alias="_meta")', after),
        ]
    return lines


def question_field(
    statement: cst.SimpleStatementLine, small: cst.AnnAssign, key: str, model: Model, field: str
) -> cst.SimpleStatementLine:
    if key == "answer_type":
        default = model.defaults.get("answer_type")
        value = small.value
        kept = [
            a
            for a in (
                value.args if isinstance(value, cst.Call) and key in model.field_calls else ()
            )
            if keyword_of(a) not in (None, "default", "serialization_alias", "alias")
        ]
        args = [
            *(
                [
                    cst.Arg(
                        answer_schema(default, QUOTE, DICT_CALL),
                        keyword=cst.Name("default"),
                        equal=EQUAL,
                    )
                ]
                if default is not None
                else []
            ),
            *kept,
            cst.Arg(
                build.string("schema", QUOTE),
                keyword=cst.Name("serialization_alias"),
                equal=EQUAL,
            ),
        ]
        new = cst.AnnAssign(
            cst.Name(SCHEMA_FIELD),
            cst.Annotation(cst.Name("dict")),
            cst.Call(cst.parse_expression(field), commas(args)),
        )
        return statement.with_changes(body=[new])
    if key == "pre_amble":
        value = small.value
        excluded: cst.BaseExpression
        if isinstance(value, cst.Call) and key in model.field_calls:
            excluded = value.with_changes(
                args=commas(
                    [
                        *value.args,
                        cst.Arg(cst.Name("True"), keyword=cst.Name("exclude"), equal=EQUAL),
                    ]
                )
            )
        else:
            written = cst.Module([]).code_for_node(value) if value is not None else None
            given = f"default={written}, " if written is not None else ""
            excluded = cst.parse_expression(f"{field}({given}exclude=True)")
        return statement.with_changes(
            body=[small.with_changes(value=excluded, equal=cst.AssignEqual())]
        )
    return statement


def question_call(updated: cst.CSTNode) -> cst.CSTNode:
    """`answer_type=X` → `answer_schema=<the schema X maps to>`."""
    assert isinstance(updated, cst.Call)
    args = [
        arg.with_changes(
            keyword=cst.Name(SCHEMA_FIELD),
            value=answer_schema(arg.value, QUOTE, DICT_CALL, shaped_like_dict_call),
        )
        if keyword_of(arg) == "answer_type"
        else arg
        for arg in updated.args
    ]
    return updated.with_changes(args=args)


def dump_rewrite(updated: cst.CSTNode) -> cst.CSTNode:
    """The dump with `by_alias=True, exclude_none=True` (other options kept)."""
    assert isinstance(updated, cst.Call)
    kept = [a for a in updated.args if keyword_of(a) not in ("by_alias", "exclude_none")]
    added = [
        cst.Arg(cst.Name("True"), keyword=cst.Name(name), equal=EQUAL)
        for name in ("by_alias", "exclude_none")
    ]
    return updated.with_changes(args=commas([*added, *kept]))


def with_field(updated: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(updated, cst.ImportFrom) and not isinstance(updated.names, cst.ImportStar)
    names = list(updated.names)
    last = names[-1]
    if isinstance(last.comma, cst.Comma) and len(names) > 1:
        # A parenthesised list with a trailing comma: `Field` on a line of its own, like the rest.
        names[-1] = last.with_changes(comma=names[-2].comma)
        return updated.with_changes(
            names=[*names, cst.ImportAlias(cst.Name("Field"), comma=last.comma)]
        )
    names[-1] = last.with_changes(comma=comma())
    return updated.with_changes(
        names=[*names, cst.ImportAlias(cst.Name("Field"), comma=last.comma)]
    )


def then_field_import(updated: cst.CSTNode) -> cst.FlattenSentinel[cst.CSTNode]:
    assert isinstance(updated, cst.SimpleStatementLine)
    return cst.FlattenSentinel([updated, cst.parse_statement("from pydantic import Field\n")])
