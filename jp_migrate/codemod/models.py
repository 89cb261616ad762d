"""Pydantic models of the file that build Outcomes: reported with what migrating one takes.

A model is not rewritten: its instances may be validated, copied, compared or
dumped anywhere (`model_dump_json`, `model_copy`, `==`), and a field holding
another model (`question: Question`) would need that model's `answer_type`
turned into a JSON schema, none of which a construction site shows.
"""

from __future__ import annotations

import libcst as cst

from jp_migrate.codemod.scan import dotted

_BASES = frozenset({"BaseModel", "pydantic.BaseModel"})


def _annotation_names(annotation: cst.Annotation) -> set[str]:
    names: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    annotation.visit(Visitor())
    return names


class Models:
    """The file's pydantic models by name, and the `cls(…)` calls inside their class bodies."""

    def __init__(self, module: cst.Module) -> None:
        self.classes: dict[str, cst.ClassDef] = {}
        self._cls_calls: dict[int, str] = {}
        for statement in module.body:
            if isinstance(statement, cst.ClassDef) and any(
                dotted(b.value) in _BASES for b in statement.bases
            ):
                self.classes[statement.name.value] = statement
        for name, node in self.classes.items():
            self._cls_calls.update((id(call), name) for call in _cls_calls(node))

    def model_of(self, call: cst.Call) -> str | None:
        """The pydantic model of this file `call` builds (`Outcome(…)`, `cls(…)` in its body)."""
        if id(call) in self._cls_calls:
            return self._cls_calls[id(call)]
        func = call.func
        return func.value if isinstance(func, cst.Name) and func.value in self.classes else None

    def reason(self, tag: str, called: str, model: str) -> str:
        """Why `called(…)` (a construction of `model`) is not rewritten, and what to change."""
        nested = sorted(
            f"`{s.target.value}` holds the model `{other}`"
            for s in _fields(self.classes[model])
            if isinstance(s.target, cst.Name)
            for other in _annotation_names(s.annotation) & self.classes.keys()
        )
        held = (
            f"; its field {', '.join(nested)}, whose answer_type becomes a schema" if nested else ""
        )
        return (
            f"{tag} Outcome built by `{called}(…)`, the pydantic model `{model}` of this file: "
            f"a model is not rewritten (its instances may be dumped, copied or compared "
            f"anywhere){held}; to migrate it, give `{model}` the envelope's fields "
            "(`content: list[dict]`, `isError: bool | None = None`, "
            '`meta: dict | None = Field(default=None, alias="_meta")`), build them as the '
            "mapping says and dump with `by_alias=True, exclude_none=True`; or build the "
            "Outcome as a dict to have it rewritten"
        )


def _cls_calls(node: cst.ClassDef) -> list[cst.Call]:
    """The `cls(…)` calls in a class body (its classmethods build instances with them)."""
    calls: list[cst.Call] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if isinstance(call.func, cst.Name) and call.func.value == "cls":
                calls.append(call)

    node.visit(Visitor())
    return calls


def _fields(node: cst.ClassDef) -> list[cst.AnnAssign]:
    body = node.body
    if not isinstance(body, cst.IndentedBlock):
        return []
    return [
        small
        for statement in body.body
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.AnnAssign)
    ]
