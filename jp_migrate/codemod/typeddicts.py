"""Outcomes built by a `TypedDict` of the file (form 7): `Success(type="success", content=x)`.

A TypedDict called is a plain dict at run time, so its constructions are
rewritten exactly as `dict(...)` calls are, and the class's fields become the
envelope's (`content: list[dict]`, `isError: bool`, `_meta: dict`), for type
checkers. Only a class whose fields are all Outcome keys counts; a dataclass or
a pydantic model is another type at run time and is reported (see `literal`).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst
import libcst.matchers as m

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.mapping import META_KEYS, OUTCOME_KEYS, TAGS
from jp_migrate.codemod.names import DUMPS
from jp_migrate.codemod.scan import Scan

QUESTION_KEYS = frozenset({"id", "text", "answer_type", "default", "pre_amble"})

_TYPED_DICT = m.ClassDef(
    bases=[
        m.ZeroOrMore(),
        m.Arg(m.Name("TypedDict") | m.Attribute(attr=m.Name("TypedDict"))),
        m.ZeroOrMore(),
    ]
)
# `name: annotation` (with `= value` or not) alone on its line.
_FIELD = m.SimpleStatementLine(body=[m.SaveMatchedNode(m.AnnAssign(target=m.Name()), "field")])
_DOCSTRING = m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])


def _declared(statement: cst.BaseStatement) -> tuple[str, cst.BaseExpression | None] | None:
    """(name, value or None) of a `_FIELD` line; None for any other statement."""
    got = m.extract(statement, _FIELD)
    field = got["field"] if got is not None else None
    if not isinstance(field, cst.AnnAssign):
        return None
    return cst.ensure_type(field.target, cst.Name).value, field.value


def _fields(node: cst.ClassDef) -> list[str] | None:
    """The field names, or None when the body holds anything but fields and a docstring."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    out: list[str] = []
    for statement in node.body.body:
        field = _declared(statement)
        if field is not None and field[1] is None:
            out.append(field[0])
        elif not m.matches(statement, _DOCSTRING):
            return None
    return out


def outcome_typed_dicts(found: Scan) -> dict[str, cst.ClassDef]:
    """TypedDicts of the file (by name, defined once) that hold an Outcome or its question."""
    classes: dict[str, list[cst.ClassDef]] = {}
    for body, _scope in found.blocks:
        for statement in body:
            if isinstance(statement, cst.ClassDef):
                classes.setdefault(statement.name.value, []).append(statement)
    out: dict[str, cst.ClassDef] = {}
    for name, defs in classes.items():
        if len(defs) != 1 or not m.matches(defs[0], _TYPED_DICT):
            continue
        fields = _fields(defs[0])
        if fields and (
            ("type" in fields and set(fields) <= OUTCOME_KEYS) or set(fields) <= QUESTION_KEYS
        ):
            out[name] = defs[0]
    return out


def _field(name: str, annotation: str, like: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    small = cst.AnnAssign(cst.Name(name), cst.Annotation(cst.parse_expression(annotation)))
    return like.with_changes(body=[small])


def rewrite_class(updated: cst.CSTNode) -> cst.CSTNode:
    """The class with the envelope's fields in place of the Outcome's (or the question's)."""
    assert isinstance(updated, cst.ClassDef) and isinstance(updated.body, cst.IndentedBlock)
    body: list[cst.BaseStatement] = []
    meta_done = False
    for statement in updated.body.body:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
        if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
            body.append(statement)
            continue
        assert isinstance(statement, cst.SimpleStatementLine)
        key = small.target.value
        if key in ("content", "question"):
            body.append(_field("content", "list[dict]", statement))
        elif key == "message":
            body += [
                _field("content", "list[dict]", statement),
                _field("isError", "bool", statement),
            ]
        elif key in META_KEYS and not meta_done:
            body.append(_field("_meta", "dict", statement))
            meta_done = True
        elif key == "answer_type":
            body.append(_field("schema", "dict", statement))
        elif key not in ("type", "pre_amble", *META_KEYS):
            body.append(statement)
    if not body:
        body = [cst.SimpleStatementLine([cst.Pass()])]
    return updated.with_changes(body=updated.body.with_changes(body=body))


def tagged_classes(found: Scan) -> dict[str, str]:
    """Classes (dataclasses, models) whose `type` field defaults to a tag and whose other
    fields are Outcome keys: `Success("done")` builds an Outcome without naming its tag."""
    out: dict[str, str] = {}
    for body, _scope in found.blocks:
        for statement in body:
            if not isinstance(statement, cst.ClassDef) or not isinstance(
                statement.body, cst.IndentedBlock
            ):
                continue
            fields = dict(f for f in map(_declared, statement.body.body) if f is not None)
            tag = const_str(fields.get("type"))
            if tag in TAGS and set(fields) <= OUTCOME_KEYS:
                out[statement.name.value] = tag
    return out


# A body of one statement, `return X` or `X` (a call, say).
_ONE_STATEMENT = m.IndentedBlock(
    body=[m.SimpleStatementLine(body=[m.SaveMatchedNode(m.Return() | m.Expr(), "small")])]
)


def _returns_or_prints(
    function: cst.FunctionDef, qualified: Callable[[cst.CSTNode], set[str]]
) -> cst.BaseExpression | None:
    """The expression of a one-statement body: `return X` or `print(X)`."""
    got = m.extract(function.body, _ONE_STATEMENT)
    small = got["small"] if got is not None else None
    if isinstance(small, cst.Return):
        return small.value
    if (
        isinstance(small, cst.Expr)
        and isinstance(small.value, cst.Call)
        and m.matches(small.value, m.Call(args=[m.Arg(keyword=None, star="")]))
        and "builtins.print" in qualified(small.value.func)
    ):
        return small.value.args[0].value
    return None


# `def f(**fields)`: no other parameter (a bare `*` is none).
_KEYWORDS_ONLY = m.Parameters(
    params=[], posonly_params=[], kwonly_params=[], star_arg=~m.Param(), star_kwarg=m.Param()
)


def keyword_builders(found: Scan, qualified: Callable[[cst.CSTNode], set[str]]) -> dict[str, bool]:
    """Functions of the file that take only `**fields` and return (or print) them as a dict,
    or `json.dumps` of them: called, they build an Outcome from keywords as `dict(...)` does.
    The value says whether they dump it to JSON text. `qualified`: what a name really is
    (`Metadata.qualified`)."""
    out: dict[str, bool] = {}
    for name, defs in found.functions.items():
        if len(defs) != 1 or not m.matches(defs[0].params, _KEYWORDS_ONLY):
            continue
        star = defs[0].params.star_kwarg
        assert isinstance(star, cst.Param)
        fields = m.Name(star.name.value)
        value = _returns_or_prints(defs[0], qualified)
        if value is None:
            continue
        if m.matches(value, fields):
            out[name] = False
        elif isinstance(value, cst.Call) and m.matches(
            value,
            m.Call(args=[m.Arg(fields), m.ZeroOrMore()]),  # `json.dumps(fields, …)`
        ):
            what = qualified(value.func)
            if what & DUMPS:
                out[name] = True
            elif "builtins.dict" in what:
                out[name] = False
    return out
