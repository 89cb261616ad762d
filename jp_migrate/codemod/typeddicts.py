"""Outcomes built by a `TypedDict` of the file (form 7): `Success(type="success", content=x)`.

A TypedDict called is a plain dict at run time, so its constructions are
rewritten exactly as `dict(...)` calls are, and the class's fields become the
envelope's (`content: list[dict]`, `isError: bool`, `_meta: dict`), for type
checkers. Only a class whose fields are all Outcome keys counts; a dataclass or
a pydantic model is another type at run time and is reported (see `literal`).
"""

from __future__ import annotations

import libcst as cst

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.mapping import META_KEYS, OUTCOME_KEYS, TAGS
from jp_migrate.codemod.scan import Scan

QUESTION_KEYS = frozenset({"id", "text", "answer_type", "default", "pre_amble"})


def _is_typed_dict(node: cst.ClassDef) -> bool:
    for base in node.bases:
        value = base.value
        name = (
            value.attr.value if isinstance(value, cst.Attribute) else getattr(value, "value", None)
        )
        if name == "TypedDict":
            return True
    return False


def _fields(node: cst.ClassDef) -> list[str] | None:
    """The field names, or None when the body holds anything but fields and a docstring."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    out: list[str] = []
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if (
            isinstance(small, cst.AnnAssign)
            and isinstance(small.target, cst.Name)
            and small.value is None
        ):
            out.append(small.target.value)
        elif not (isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString)):
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
        if len(defs) != 1 or not _is_typed_dict(defs[0]):
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
            fields: dict[str, cst.BaseExpression | None] = {}
            for line in statement.body.body:
                if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
                    small = line.body[0]
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        fields[small.target.value] = small.value
            tag = const_str(fields.get("type"))
            if tag in TAGS and set(fields) <= OUTCOME_KEYS:
                out[statement.name.value] = tag
    return out


def _returns_or_prints(function: cst.FunctionDef) -> cst.BaseExpression | None:
    """The expression of a one-statement body: `return X` or `print(X)`."""
    body = function.body
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
        return None
    line = body.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    if isinstance(small, cst.Return):
        return small.value
    value = small.value if isinstance(small, cst.Expr) else None
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and len(value.args) == 1:
        return value.args[0].value if value.func.value == "print" else None
    return None


def keyword_builders(found: Scan) -> dict[str, bool]:
    """Functions of the file that take only `**fields` and return (or print) them as a dict,
    or `json.dumps` of them: called, they build an Outcome from keywords as `dict(...)` does.
    The value says whether they dump it to JSON text."""
    out: dict[str, bool] = {}
    for name, defs in found.functions.items():
        if len(defs) != 1:
            continue
        params = defs[0].params
        star = params.star_kwarg
        if params.params or params.kwonly_params or params.posonly_params or star is None:
            continue
        if isinstance(params.star_arg, cst.Param):
            continue
        kw = star.name.value
        value = _returns_or_prints(defs[0])
        if isinstance(value, cst.Name) and value.value == kw:
            out[name] = False
        elif (
            isinstance(value, cst.Call)
            and len(value.args) >= 1
            and isinstance(value.args[0].value, cst.Name)
            and value.args[0].value.value == kw
            and cst.Module([]).code_for_node(value.func) in ("json.dumps", "dumps", "dict")
        ):
            out[name] = cst.Module([]).code_for_node(value.func) != "dict"
    return out
