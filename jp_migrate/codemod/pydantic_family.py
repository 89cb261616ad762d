"""What a file's pydantic models that build Outcomes are, and what stands in the way of
rewriting them (form 7); `pydantic_models` plans the rewrite, `pydantic_rebuild` does it.

A family is the file's top-level `BaseModel` classes (the ScopeProvider's qualified
names say a base is pydantic's) whose fields are Outcome keys, `type` among them, and the
model their `question` field holds. What it is used for is read with the
ScopeProvider (every reference to a class, what a name is bound to) and the
ParentNodeProvider (where a reference stands): built, annotated, `isinstance`-checked,
its own methods called, dumped. Anything else, and any read of a legacy field, is a
problem named with its place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.metadata import (
    Assignment,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    Scope,
    ScopeProvider,
)

from jp_migrate.codemod.entries import const_str
from jp_migrate.codemod.mapping import LEGACY_KEYS, OUTCOME_KEYS, TAGS, IsDictCall, inert

QUESTION_KEYS = frozenset({"id", "text", "answer_type", "default", "pre_amble"})
_BASES = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
_DUMPS = ("model_dump", "model_dump_json")
_DUMP = m.Call(func=m.Attribute(attr=m.Name(_DUMPS[0]) | m.Name(_DUMPS[1])))
# Dump options that name fields or drop set ones: the envelope's fields differ.
_FIELD_OPTIONS = frozenset({"include", "exclude", "exclude_unset", "exclude_defaults"})
_FIELD = m.AnnAssign(target=m.Name())
_DOCSTRING = m.SimpleStatementLine(body=[m.Expr(m.SimpleString() | m.ConcatenatedString())])


@dataclass(frozen=True)
class Model:
    node: cst.ClassDef
    question: bool  # the question model (a `question` field's type), else an Outcome model
    tag: str | None  # the tag an Outcome model's `type` defaults to
    fields: dict[str, cst.AnnAssign]
    defaults: dict[str, cst.BaseExpression | None]  # None: no default, or a default of None
    field_calls: frozenset[str] = frozenset()  # fields whose value is a `Field(…)` call
    unusable: frozenset[str] = frozenset()  # fields whose default cannot be written out

    @property
    def name(self) -> str:
        return self.node.name.value


def _default(
    value: cst.BaseExpression | None, is_field: Callable[[cst.Call], bool]
) -> cst.BaseExpression | None:
    """A field's default as an expression each construction can pass (a copy: a node is in
    one place of a tree), or None (none, or None). Raises ValueError for a default that
    cannot be written out: evaluated once by the class, it is not the same evaluated at
    each construction."""
    if value is None:
        return None
    if isinstance(value, cst.Call) and is_field(value):
        for index, arg in enumerate(value.args):
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "default" or (keyword is None and index == 0):
                return _default(arg.value, is_field)
            if keyword == "default_factory":
                empty = {"list": cst.List([]), "dict": cst.Dict([])}
                factory = arg.value
                if isinstance(factory, cst.Name) and factory.value in empty:
                    return empty[factory.value]
                if not inert(factory):
                    raise ValueError(code(factory))
                return cst.Call(factory.deep_clone())
        return None
    if m.matches(value, m.Name("None")):
        return None
    if not inert(value) or isinstance(value, cst.Call):
        raise ValueError(code(value))
    return value.deep_clone()


def _defaults(
    fields: dict[str, cst.AnnAssign], is_field: Callable[[cst.Call], bool]
) -> tuple[dict[str, cst.BaseExpression | None], frozenset[str]]:
    """Each field's default (`_default`), and the fields whose default cannot be written out."""
    out: dict[str, cst.BaseExpression | None] = {}
    unusable: set[str] = set()
    for key, field in fields.items():
        try:
            out[key] = _default(field.value, is_field)
        except ValueError:
            out[key] = None
            unusable.add(key)
    return out, frozenset(unusable)


def called(call: cst.Call) -> str:
    return cst.Module([]).code_for_node(call.func)


def _shape(node: cst.ClassDef) -> dict[str, cst.AnnAssign] | None:
    """The fields of a class whose body is fields, a docstring, `model_config` and methods."""
    if not isinstance(node.body, cst.IndentedBlock):
        return None
    fields: dict[str, cst.AnnAssign] = {}
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef) or m.matches(statement, _DOCSTRING):
            continue
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return None
        small = statement.body[0]
        if m.matches(small, _FIELD):
            assert isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
            fields[small.target.value] = small
        elif not m.matches(small, m.Assign(targets=[m.AssignTarget(m.Name("model_config"))])):
            return None
    return fields


def may_hold_models(module: cst.Module) -> bool:
    """A top-level class with a base and an Outcome's fields: only then is the file's
    metadata (scopes, parents, positions) worth resolving."""
    for statement in module.body:
        if isinstance(statement, cst.ClassDef) and statement.bases:
            fields = _shape(statement)
            if fields is not None and "type" in fields and set(fields) <= OUTCOME_KEYS:
                return True
    return False


class Family:
    """The pydantic models of one file that build Outcomes, and what rewriting them takes."""

    def __init__(self, module: cst.Module, is_dict_call: IsDictCall) -> None:
        self._module = module
        self._is_dict_call = is_dict_call
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self._scopes = wrapper.resolve(ScopeProvider)
        self._parents = wrapper.resolve(ParentNodeProvider)
        self._positions = wrapper.resolve(PositionProvider)
        self.models: dict[str, Model] = {}
        self.other_models: list[str] = []  # pydantic models that build no Outcome
        self.problems: list[str] = []
        self.constructions: dict[int, tuple[cst.Call, Model]] = {}
        self.dumps: list[cst.Call] = []
        self._find_models()
        if self.models:
            self._check()

    # -- what the file holds -------------------------------------------------------------

    def _qualified(self, node: cst.CSTNode) -> set[str]:
        """What `node` names (`pydantic.BaseModel`, `builtins.isinstance`), asked of its scope
        only where needed: QualifiedNameProvider would name every node of the file."""
        scope = self._scopes.get(node)
        if not isinstance(scope, Scope):
            return set()
        return {q.name for q in scope.get_qualified_names_for(node)}

    def _order(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self._positions[node].start
        return (start.line, start.column)

    def where(self, node: cst.CSTNode) -> str:
        start = self._positions[node].start
        return f"{start.line}:{start.column + 1}"

    def _find_models(self) -> None:
        classes: dict[str, tuple[cst.ClassDef, dict[str, cst.AnnAssign] | None]] = {}
        for statement in self._module.body:
            if isinstance(statement, cst.ClassDef) and any(
                self._qualified(base.value) & _BASES for base in statement.bases
            ):
                classes[statement.name.value] = (statement, _shape(statement))
        field_call = {"pydantic.Field"} | {
            name for name in self._bound_names() if self._qualified_name(name) == "pydantic.Field"
        }
        self._field_call = field_call
        outcomes = {
            name: fields
            for name, (_node, fields) in classes.items()
            if fields is not None and "type" in fields and set(fields) <= OUTCOME_KEYS
        }
        held: set[str] = set()
        for fields in outcomes.values():
            question = fields.get("question")
            if question is not None:
                named = m.findall(question.annotation, m.Name())
                held.update(n.value for n in named if isinstance(n, cst.Name))
        for name, (node, shape) in classes.items():
            if name in outcomes:
                fields = outcomes[name]
                defaults, unusable = _defaults(fields, self._is_field)
                tag = const_str(defaults.get("type"))
                self.models[name] = Model(
                    node,
                    False,
                    tag if tag in TAGS else None,
                    fields,
                    defaults,
                    self._calls(fields),
                    unusable,
                )
            elif name in held and shape is not None and set(shape) <= QUESTION_KEYS:
                fields = shape
                defaults, unusable = _defaults(fields, self._is_field)
                self.models[name] = Model(
                    node, True, None, fields, defaults, self._calls(fields), unusable
                )
            else:
                self.other_models.append(name)
        if self.models and not any(not model.question for model in self.models.values()):
            self.models = {}

    def _is_field(self, call: cst.Call) -> bool:
        return "pydantic.Field" in self._qualified(call.func)

    def _calls(self, fields: dict[str, cst.AnnAssign]) -> frozenset[str]:
        """The fields whose value is a `Field(…)` call (kept, with one argument changed)."""
        return frozenset(
            k
            for k, f in fields.items()
            if isinstance(f.value, cst.Call) and self._is_field(f.value)
        )

    def _bound_names(self) -> Iterable[str]:
        for statement in self._module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.ImportFrom) and not isinstance(
                        small.names, cst.ImportStar
                    ):
                        for alias in small.names:
                            yield alias.evaluated_alias or alias.evaluated_name

    def _qualified_name(self, name: str) -> str | None:
        scope = self._scopes.get(self._module)
        if not isinstance(scope, Scope):
            return None
        names = {q.name for q in scope.get_qualified_names_for(name)}
        return next(iter(names)) if len(names) == 1 else None

    # -- what stands in the way ----------------------------------------------------------

    def _check(self) -> None:
        """Every use of the models' classes, every legacy field read and every dump, judged."""
        scope = self._scopes.get(self._module)
        assert isinstance(scope, Scope)
        for model in self.models.values():
            for assignment in scope[model.name]:
                # References come as a set: in source order, the first problem is the same each run.
                uses = sorted((a.node for a in assignment.references), key=self._order)
                for node in uses:
                    self._judge_use(node, model)
            self._cls_calls(model)
            self._decorated(model)
        self._legacy_reads()
        self._find_dumps()
        scope_names = {a.name for a in scope.assignments}
        if (
            self._field_name() == "Field"
            and "Field" not in self._field_call
            and "Field" in scope_names
        ):
            self.problems.append(
                "the name `Field` is bound here to something other than `pydantic.Field`, which "
                "the rewritten model needs: import it as `from pydantic import Field` to have it "
                "rewritten"
            )
        if not any(not model.question for _call, model in self.constructions.values()):
            return
        if not self.dumps:
            self.problems.append(
                "no `model_dump(…)` or `model_dump_json(…)` of it in this file, so it is dumped "
                "somewhere the codemod does not see: dump it in this file (or build the "
                "Outcome as a dict) to have it rewritten"
            )

    def _decorated(self, model: Model) -> None:
        """A validator or serializer (`@field_validator("content")`) names or reads the
        fields the rewrite replaces: pydantic would refuse the rewritten class."""
        plain = m.Decorator(m.Name("classmethod") | m.Name("staticmethod") | m.Name("property"))
        for method in m.findall(model.node.body, m.FunctionDef()):
            assert isinstance(method, cst.FunctionDef)
            for decorator in method.decorators:
                if not m.matches(decorator, plain):
                    self.problems.append(
                        f"`@{code(decorator.decorator)}` on `{model.name}.{method.name.value}` "
                        f"at {self.where(decorator)} may name or read the fields the rewrite "
                        "replaces: move what it does out of the model to have it rewritten"
                    )

    def _judge_use(self, node: cst.CSTNode, model: Model) -> None:
        parent = self._parents.get(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            self.constructions[id(parent)] = (parent, model)
            return
        if isinstance(parent, cst.Attribute) and parent.value is node:
            method = parent.attr.value
            if method in self._methods(model) and isinstance(self._parents.get(parent), cst.Call):
                return
        if self._in_annotation(node) or self._in_isinstance(node):
            return
        self.problems.append(
            f"`{model.name}` is used at {self.where(node)} other than to build, annotate or "
            f"`isinstance`-check (`{code(parent)}`): the rewrite changes its fields; build "
            "the Outcome there another way (or leave the model out of it) to have it rewritten"
        )

    def _methods(self, model: Model) -> set[str]:
        assert isinstance(model.node.body, cst.IndentedBlock)
        return {s.name.value for s in model.node.body.body if isinstance(s, cst.FunctionDef)}

    def _in_annotation(self, node: cst.CSTNode) -> bool:
        current: cst.CSTNode | None = node
        while current is not None and not isinstance(current, cst.BaseStatement):
            if isinstance(current, cst.Annotation):
                return True
            current = self._parents.get(current)
        return False

    def _in_isinstance(self, node: cst.CSTNode) -> bool:
        """`isinstance(x, Outcome)`, `isinstance(x, (Ok, Err))`."""
        arg = self._parents.get(node)
        if isinstance(arg, cst.Element):
            arg = self._parents.get(self._parents.get(arg) or arg)
        call = self._parents.get(arg) if isinstance(arg, cst.Arg) else None
        return isinstance(call, cst.Call) and "builtins.isinstance" in self._qualified(call.func)

    def _cls_calls(self, model: Model) -> None:
        """`cls(…)` in the class's classmethods build it too."""
        for method in m.findall(model.node, m.FunctionDef()):
            assert isinstance(method, cst.FunctionDef)
            if (
                not any(m.matches(d.decorator, m.Name("classmethod")) for d in method.decorators)
                or not method.params.params
            ):
                continue
            first = method.params.params[0].name.value
            for call in m.findall(method, m.Call(func=m.Name(first))):
                assert isinstance(call, cst.Call)
                self.constructions[id(call)] = (call, model)

    def _legacy_reads(self) -> None:
        """`r.message`, `q.answer_type`: fields the rewrite removes, read back (any object's:
        what a name holds is not followed, so a read of the same name elsewhere counts)."""
        gone = set(LEGACY_KEYS | {"type"})
        if any(model.question for model in self.models.values()):
            gone.add("answer_type")
        for node in m.findall(self._module, m.Attribute(attr=m.Name())):
            assert isinstance(node, cst.Attribute)
            parent = self._parents.get(node)
            if node.attr.value in gone and not (
                isinstance(parent, cst.Call) and parent.func is node
            ):
                self.problems.append(
                    f"`.{node.attr.value}` is read at {self.where(node)} "
                    f"(`{code(node)}`), a field the rewrite replaces: read the envelope "
                    "instead (or rename what is read, if it is no Outcome) to have it rewritten"
                )

    def _find_dumps(self) -> None:
        for node in m.findall(self._module, _DUMP):
            assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            if not self._holds_model(node.func.value, depth=3):
                others = ", ".join(f"`{n}`" for n in self.other_models)
                self.problems.append(
                    f"`{code(node)}` at {self.where(node)} dumps something the codemod cannot "
                    f"tell is one of the Outcome models{f' (the file has {others} too)' if others else ''}: "
                    "dump a name bound to a construction, a call of a function annotated "
                    f"`-> {self._outcome_name()}`, or `self` in the model's own method, to have "
                    "it rewritten"
                )
                continue
            for arg in node.args:
                keyword = arg.keyword.value if arg.keyword is not None else None
                if keyword is None or keyword in _FIELD_OPTIONS:
                    self.problems.append(
                        f"`{code(node)}` at {self.where(node)} passes "
                        f"`{code(arg.keyword) if arg.keyword else 'a positional argument'}`, "
                        "which names the legacy fields: dump the whole model to have it rewritten"
                    )
            self.dumps.append(node)

    def _outcome_name(self) -> str:
        return next(name for name, model in self.models.items() if not model.question)

    def _names_model(self, annotation: cst.CSTNode | None) -> bool:
        """An annotation naming one of the models (`Outcome`, `Ok | Err`, `"Outcome"`)."""
        if annotation is None:
            return False
        found = m.findall(annotation, m.Name() | m.SimpleString())
        names = {n.value for n in found if isinstance(n, cst.Name)}
        strings = {const_str(s) for s in found if isinstance(s, cst.SimpleString)}
        return bool((names | strings) & self.models.keys())

    def _holds_model(self, node: cst.BaseExpression, depth: int) -> bool:
        """Whether `node` is plainly an instance of the models: a construction, a classmethod
        of theirs, a call of a function of the file annotated (or returning) one, `self` in
        their own methods, or a name every binding of which is one of these (or a parameter
        annotated with one)."""
        if depth < 0:
            return False
        if isinstance(node, cst.Await):
            return self._holds_model(node.expression, depth)
        if isinstance(node, cst.Call):
            return self._call_holds_model(node, depth)
        if not isinstance(node, cst.Name):
            return False
        if node.value == "self":
            current = self._parents.get(node)
            while current is not None and not isinstance(current, cst.ClassDef):
                current = self._parents.get(current)
            return isinstance(current, cst.ClassDef) and current.name.value in self.models
        bindings = self.bindings(node)
        return bool(bindings) and all(self._binds_model(b, depth) for b in bindings)

    def bindings(self, name: cst.Name) -> list[cst.CSTNode]:
        """The nodes binding `name` where it is read (ScopeProvider); [] if one is not in the
        file (a builtin)."""
        scope = self._scopes.get(name)
        found = list(scope[name.value]) if isinstance(scope, Scope) else []
        if not all(isinstance(b, Assignment) for b in found):
            return []
        return [b.node for b in found if isinstance(b, Assignment)]

    def _binds_model(self, target: cst.CSTNode, depth: int) -> bool:
        if isinstance(target, cst.Param):
            return self._names_model(target.annotation)
        parent = self._parents.get(target)
        statement = self._parents.get(parent) if isinstance(parent, cst.AssignTarget) else parent
        if isinstance(statement, (cst.Assign, cst.AnnAssign)) and statement.value is not None:
            return self._holds_model(statement.value, depth - 1)
        return False

    def _call_holds_model(self, call: cst.Call, depth: int) -> bool:
        if id(call) in self.constructions:
            return True
        func = call.func
        if m.matches(func, m.Attribute(value=m.OneOf(*(m.Name(n) for n in self.models)))):
            return True  # `Outcome.ok(…)`: only the model's own methods pass `_judge_use`
        if not isinstance(func, cst.Name):
            return False
        functions = self.bindings(func)
        if len(functions) != 1 or not isinstance(functions[0], cst.FunctionDef):
            return False
        function = functions[0]
        if function.returns is not None:
            return self._names_model(function.returns.annotation)
        returns = [r.value for r in m.findall(function, m.Return()) if isinstance(r, cst.Return)]
        return bool(returns) and all(
            r is not None and self._holds_model(r, depth - 1) for r in returns
        )

    def _bound_value(self, target: cst.CSTNode) -> cst.BaseExpression | None:
        """The value of the `name = value` statement that binds `target`, else None."""
        parent = self._parents.get(target)
        statement = self._parents.get(parent) if isinstance(parent, cst.AssignTarget) else None
        return statement.value if isinstance(statement, cst.Assign) else None

    def _field_name(self) -> str:
        """How `pydantic.Field` is spelt here: its imported name, `pydantic.Field`, or `Field`
        (imported by the rewrite)."""
        bound = next((n for n in self._field_call if "." not in n), None)
        if bound is not None:
            return bound
        module = self._pydantic_module()
        return f"{module}.Field" if module is not None else "Field"

    def _pydantic_module(self) -> str | None:
        """The name `import pydantic [as pd]` binds at the top, if any."""
        for statement in self._module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if m.matches(alias.name, m.Name("pydantic")):
                            bound = alias.evaluated_alias
                            return bound if bound is not None else "pydantic"
        return None


def code(node: cst.CSTNode | None) -> str:
    text = cst.Module([]).code_for_node(node) if node is not None else "…"
    return text if len(text) <= 60 else text[:57] + "…"
