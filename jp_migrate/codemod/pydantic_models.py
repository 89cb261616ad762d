"""Outcomes built by pydantic models of the file (form 7): the models become the envelope's.

    class Question(BaseModel):              class Question(BaseModel):
        id: str                                 id: str
        text: str                               text: str
        answer_type: str = "Boolean"    →       answer_schema: dict = Field(default={"type": "boolean"},
        pre_amble: str | None = None                                        serialization_alias="schema")
                                                pre_amble: str | None = Field(default=None, exclude=True)
    class Outcome(BaseModel):
        type: str                               class Outcome(BaseModel):
        content: str | None = None      →       content: list[dict]
        message: str | None = None              isError: bool | None = None
        trace: list[str] = []                   meta: dict | None = Field(default=None,
        transient: bool = False                                           serialization_alias="_meta")
        question: Question | None = None

Each construction is mapped as a `dict(...)` call is (a missing field takes its
class default, written out; `_meta` is passed as `meta`, since a field named
`_meta` is a private attribute to pydantic); a question held in a name bound to
`Question(…)` goes in as it is, its pre_amble (kept on the model, left out of
the dump) becoming an optional text block when the tool runs. Every dump gets
`by_alias=True, exclude_none=True`, so the printed JSON is the envelope the
mapping produces. A family of models is rewritten whole or not at all: a
construction that cannot be mapped, a use of a class other than building,
annotating or `isinstance`, a read of a legacy field, a dump with `include=`
or `exclude=`, or no dump in the file reports every Outcome site of the family
with what to change.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)
from libcst.metadata.base_provider import LazyValue

from jp_migrate.codemod import build
from jp_migrate.codemod.entries import NewEntry, call_entries, const_str, rebuild
from jp_migrate.codemod.mapping import (
    LEGACY_KEYS,
    OUTCOME_KEYS,
    REQUIRED,
    TAGS,
    IsDictCall,
    Unhandled,
    answer_schema,
    envelope_entries,
    inert,
    question_content,
    shaped_like_dict_call,
)
from jp_migrate.codemod.pydantic_mcp import result_rewrites
from jp_migrate.codemod.sites import DICT_CALL, MCP_SERVER, Finding, Rebuild

QUESTION_KEYS = frozenset({"id", "text", "answer_type", "default", "pre_amble"})
_BASES = frozenset({"pydantic.BaseModel", "pydantic.main.BaseModel"})
_DUMPS = ("model_dump", "model_dump_json")
_DUMP = m.Call(func=m.Attribute(attr=m.Name(_DUMPS[0]) | m.Name(_DUMPS[1])))
# Dump options that name fields or drop set ones: the envelope's fields differ.
_FIELD_OPTIONS = frozenset({"include", "exclude", "exclude_unset", "exclude_defaults"})
_FIELD = m.AnnAssign(target=m.Name())
_DOCSTRING = m.SimpleStatementLine(body=[m.Expr(m.SimpleString() | m.ConcatenatedString())])
SCHEMA_FIELD = "answer_schema"
_EQUAL = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
_QUOTE = '"'


@dataclass(frozen=True)
class Model:
    node: cst.ClassDef
    question: bool  # the question model (a `question` field's type), else an Outcome model
    tag: str | None  # the tag an Outcome model's `type` defaults to
    fields: dict[str, cst.AnnAssign]
    defaults: dict[str, cst.BaseExpression | None]  # None: no default, or a default of None
    field_calls: frozenset[str] = frozenset()  # fields whose value is a `Field(…)` call

    @property
    def name(self) -> str:
        return self.node.name.value


def _default(
    value: cst.BaseExpression | None, is_field: Callable[[cst.Call], bool]
) -> cst.BaseExpression | None:
    """A field's default as an expression a construction can pass, or None (none, or None)."""
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
                return cst.Call(factory)
        return None
    if m.matches(value, m.Name("None")):
        return None
    return value


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


class Family:
    """The pydantic models of one file that build Outcomes, and what rewriting them takes."""

    def __init__(self, module: cst.Module, is_dict_call: IsDictCall, mcp: bool = False) -> None:
        """`mcp`: the file is an MCP server, whose tools return the dumps as MCP results."""
        self._module = module
        self._mcp = mcp
        self._results: list[tuple[cst.CSTNode, Rebuild]] = []
        self._tags: dict[str, set[str]] = {}  # model → the tags its constructions build
        self._is_dict_call = is_dict_call
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self._names = wrapper.resolve(QualifiedNameProvider)
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
        names = self._names.get(node, set())
        if isinstance(names, LazyValue):  # computed on demand
            names = names()
        return {q.name for q in names}  # type: ignore[union-attr]

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
                for node in m.findall(question.annotation, m.Name()):
                    assert isinstance(node, cst.Name)
                    held.add(node.value)
        for name, (node, fields) in classes.items():
            if name in outcomes:
                assert fields is not None
                defaults = {k: _default(f.value, self._is_field) for k, f in fields.items()}
                tag = const_str(defaults.get("type"))
                self.models[name] = Model(
                    node, False, tag if tag in TAGS else None, fields, defaults, self._calls(fields)
                )
            elif name in held and fields is not None and set(fields) <= QUESTION_KEYS:
                defaults = {k: _default(f.value, self._is_field) for k, f in fields.items()}
                self.models[name] = Model(node, True, None, fields, defaults, self._calls(fields))
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
                for access in assignment.references:
                    self._judge_use(access.node, model)
            self._cls_calls(model)
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
            f"`isinstance`-check (`{_code(parent)}`): the rewrite changes its fields; build "
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
        arg = self._parents.get(node)
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
                    f"(`{_code(node)}`), a field the rewrite replaces: read the envelope "
                    "instead (or rename what is read, if it is no Outcome) to have it rewritten"
                )

    def _find_dumps(self) -> None:
        for node in m.findall(self._module, _DUMP):
            assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            if not self._holds_model(node.func.value, depth=3):
                others = ", ".join(f"`{n}`" for n in self.other_models)
                self.problems.append(
                    f"`{_code(node)}` at {self.where(node)} dumps something the codemod cannot "
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
                        f"`{_code(node)}` at {self.where(node)} passes "
                        f"`{_code(arg.keyword) if arg.keyword else 'a positional argument'}`, "
                        "which names the legacy fields: dump the whole model to have it rewritten"
                    )
            self.dumps.append(node)

    def _outcome_name(self) -> str:
        return next(name for name, model in self.models.items() if not model.question)

    def _names_model(self, annotation: cst.CSTNode | None) -> bool:
        """An annotation naming one of the models (`Outcome`, `Ok | Err`, `"Outcome"`)."""
        if annotation is None:
            return False
        names = {n.value for n in m.findall(annotation, m.Name())}  # type: ignore[union-attr]
        strings = {const_str(s) for s in m.findall(annotation, m.SimpleString())}  # type: ignore[arg-type]
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
        scope = self._scopes.get(node)
        bindings = list(scope[node.value]) if isinstance(scope, Scope) else []
        return bool(bindings) and all(self._binds_model(b.node, depth) for b in bindings)

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
        scope = self._scopes.get(func)
        bindings = list(scope[func.value]) if isinstance(scope, Scope) else []
        functions = [b.node for b in bindings]
        if len(functions) != 1 or not isinstance(functions[0], cst.FunctionDef):
            return False
        function = functions[0]
        if function.returns is not None:
            return self._names_model(function.returns.annotation)
        returns = [r.value for r in m.findall(function, m.Return())]  # type: ignore[union-attr]
        return bool(returns) and all(
            r is not None and self._holds_model(r, depth - 1) for r in returns
        )

    # -- the rewrite ---------------------------------------------------------------------

    def findings(self, advice: str = "") -> list[Finding]:
        """One finding per Outcome construction, each carrying the rewrite of the whole family."""
        outcome_calls = [
            (call, model) for call, model in self.constructions.values() if not model.question
        ]
        outcome_calls.sort(key=lambda pair: self._order(pair[0]))
        plans: list[tuple[cst.Call, str, Rebuild]] = []
        problems = list(self.problems)
        for call, model in outcome_calls:
            try:
                tag = self._tag(call, model)
                self._tags.setdefault(model.name, set()).add(tag)
                plans.append((call, tag, self._construction(call, model, tag)))
            except Unhandled as exc:
                problems.append(f"{exc.reason} (at {self.where(call)})")
                plans.append((call, self._guess_tag(call, model), _unchanged))
        for call, model in self.constructions.values():
            if model.question:
                try:
                    self._question_construction(call, model)
                except Unhandled as exc:
                    problems.append(f"{exc.reason} (at {self.where(call)})")
        if self._mcp:
            problems += self._mcp_problems([tag for _call, tag, _ in plans])
        if problems:
            return [
                Finding(call, DICT_CALL, "unhandled", self._refusal(tag, call, problems[0], advice))
                for call, tag, _ in plans
            ]
        shared = self._shared_rewrites()
        target = "MCP CallToolResult" if self._mcp else "RFD 058 envelope"
        return [
            Finding(
                call,
                MCP_SERVER if self._mcp else DICT_CALL,
                "rewritten",
                f"{tag} Outcome built by pydantic model `{self.constructions[id(call)][1].name}` "
                f"→ {target}",
                ((call, rewrite), *shared),
                None if self._mcp else call,  # an MCP result is no envelope to read back
            )
            for call, tag, rewrite in plans
        ]

    def _mcp_problems(self, tags: list[str]) -> list[str]:
        if "needs_input" in tags:
            return [_ASK]
        try:
            self._results = result_rewrites(self._module, self.dumps, self._parents.get, self.where)
        except Unhandled as exc:
            return [exc.reason]
        return []

    def _order(self, node: cst.CSTNode) -> tuple[int, int]:
        start = self._positions[node].start
        return (start.line, start.column)

    def _refusal(self, tag: str, call: cst.Call, problem: str, advice: str) -> str:
        model = self.constructions[id(call)][1].name
        return (
            f"{tag} Outcome built by `{called(call)}(…)`, the pydantic model `{model}` of this "
            f"file: not rewritten, since {problem}{advice}"
        )

    def _guess_tag(self, call: cst.Call, model: Model) -> str:
        given = next((const_str(a.value) for a in call.args if _keyword(a) == "type"), None)
        return given or model.tag or "an"

    def _tag(self, call: cst.Call, model: Model) -> str:
        given = [a for a in call.args if _keyword(a) == "type"]
        tag = const_str(given[0].value) if given else model.tag
        if tag not in TAGS or (given and model.tag not in (None, tag)):
            raise Unhandled(
                DICT_CALL,
                f"`{called(call)}(…)` is given no constant `type` the codemod can map: pass one "
                '(`type="success"`, "error" or "needs_input") to each construction to have it '
                "rewritten",
            )
        assert tag is not None
        return tag

    def _named(self, call: cst.Call, model: Model, tag: str) -> cst.Call:
        """The construction with the keys the tag needs: class defaults written out, keys of
        other tags dropped (when inert), `type` dropped."""
        args: list[cst.Arg] = []
        given: set[str] = set()
        for arg in call.args:
            keyword = _keyword(arg)
            if keyword is None:
                raise Unhandled(
                    DICT_CALL,
                    f"`{called(call)}(…)` passes a positional or `**` argument: name each field to have it rewritten",
                )
            given.add(keyword)
            if keyword == "type":
                continue
            if keyword not in REQUIRED[tag]:
                if not inert(arg.value):
                    raise Unhandled(
                        DICT_CALL,
                        f"`{keyword}=` is computed in a {tag} Outcome, whose envelope has no "
                        "place for it: compute it before the construction to have it rewritten",
                    )
                continue
            args.append(arg)
        for key in REQUIRED[tag]:
            default = model.defaults.get(key)
            if key not in given and default is not None:
                args.append(cst.Arg(default, keyword=cst.Name(key), equal=_EQUAL))
        return call.with_changes(args=_commas(args))

    def _construction(self, call: cst.Call, model: Model, tag: str) -> Rebuild:
        self._content(self._named(call, model, tag), tag, analysing=True)

        def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            return self._content(self._named(updated, model, tag), tag, analysing=False)

        return rewrite

    def _content(self, call: cst.Call, tag: str, *, analysing: bool) -> cst.Call:
        entries = call_entries(call)
        if tag == "needs_input":
            question = next((e for e in entries if e.key == "question"), None)
            if question is None:
                raise Unhandled(
                    DICT_CALL,
                    "incomplete needs_input Outcome: no 'question' (pass one, or give the field "
                    "a default) to have it rewritten",
                )
            new = [NewEntry("content", self._question_blocks(question.value, analysing), question)]
        else:
            is_dict_call = self._is_dict_call if analysing else shaped_like_dict_call
            new = envelope_entries(tag, entries, _QUOTE, DICT_CALL, is_dict_call)
        rebuilt = rebuild(call, [_meta_named(e) for e in new], _QUOTE)
        assert isinstance(rebuilt, cst.Call)
        return rebuilt

    def _question_model(self) -> Model | None:
        return next((model for model in self.models.values() if model.question), None)

    def _question_blocks(self, value: cst.BaseExpression, analysing: bool) -> cst.List:
        if isinstance(value, cst.Dict) or (
            self._is_dict_call(value) if analysing else shaped_like_dict_call(value)
        ):
            return question_content(value, _QUOTE, DICT_CALL, shaped_like_dict_call)
        model = self._question_model()
        pre: cst.BaseElement | None = None
        if isinstance(value, cst.Call) and model is not None and called(value) == model.name:
            pre_arg = next((a for a in value.args if _keyword(a) == "pre_amble"), None)
            if pre_arg is not None and m.matches(pre_arg.value, m.Name("None")):
                value = value.with_changes(
                    args=_commas([a for a in value.args if a is not pre_arg])
                )
            elif pre_arg is not None:
                before = value.args[: list(value.args).index(pre_arg)]
                if not inert(pre_arg.value) and not all(inert(a.value) for a in before):
                    raise Unhandled(
                        DICT_CALL,
                        "moving the pre_amble before the question would evaluate it before "
                        "the question's other fields: pass `pre_amble=` first to have it rewritten",
                    )
                pre = _pre_amble_block(pre_arg.value)
                value = value.with_changes(
                    args=_commas([a for a in value.args if a is not pre_arg])
                )
            elif model.defaults.get("pre_amble") is not None:
                pre = _pre_amble_block(model.defaults["pre_amble"])  # type: ignore[arg-type]
        elif isinstance(value, cst.Name) and model is None:
            if analysing and not self._bound_to_dicts(value):
                raise Unhandled(
                    DICT_CALL,
                    f"the question `{value.value}` is not always bound to a dict: assign it "
                    "from a dict literal only to have it rewritten",
                )
            return build.question_of_held(value, _QUOTE)  # its content built when the tool runs
        elif isinstance(value, cst.Name) and model is not None:
            if analysing:
                self._held_question(value, model)
            if "pre_amble" in model.fields:
                pre = build.optional_text_block(cst.Attribute(value, cst.Name("pre_amble")), _QUOTE)
        else:
            raise Unhandled(
                DICT_CALL,
                f"the question `{_code(value)}` is neither a dict nor a name bound to "
                f"`{model.name if model else 'Question'}(…)`: bind it to a name first "
                "(`q = Question(…)`) to have it rewritten",
            )
        block = cst.Element(build.question_block(value, _QUOTE))
        if pre is None:
            return cst.List([block])
        return cst.List([pre.with_changes(comma=_comma()), block])

    def _bound_to_dicts(self, name: cst.Name) -> bool:
        scope = self._scopes.get(name)
        bindings = list(scope[name.value]) if isinstance(scope, Scope) else []
        values = [self._bound_value(b.node) for b in bindings]
        return bool(values) and all(
            v is not None and (isinstance(v, cst.Dict) or self._is_dict_call(v)) for v in values
        )

    def _bound_value(self, target: cst.CSTNode) -> cst.BaseExpression | None:
        """The value of the `name = value` statement that binds `target`, else None."""
        parent = self._parents.get(target)
        statement = self._parents.get(parent) if isinstance(parent, cst.AssignTarget) else None
        return statement.value if isinstance(statement, cst.Assign) else None

    def _held_question(self, name: cst.Name, model: Model) -> None:
        """`question=q`: every binding of `q` must be a construction of the question model."""
        scope = self._scopes.get(name)
        bindings = list(scope[name.value]) if isinstance(scope, Scope) else []
        for binding in bindings:
            value = self._bound_value(binding.node)
            if not (
                isinstance(value, cst.Call)
                and self.constructions.get(id(value), (None, None))[1] is model
            ):
                bindings = []
                break
        if not bindings:
            raise Unhandled(
                DICT_CALL,
                f"the question `{name.value}` is not always bound to `{model.name}(…)`: "
                f"assign it from `{model.name}(…)` only to have it rewritten",
            )

    def _question_construction(self, call: cst.Call, model: Model) -> None:
        for arg in call.args:
            if _keyword(arg) is None:
                raise Unhandled(
                    DICT_CALL,
                    f"`{called(call)}(…)` passes a positional or `**` argument: name each field to have it rewritten",
                )
            if _keyword(arg) == "answer_type":
                answer_schema(arg.value, _QUOTE, DICT_CALL, self._is_dict_call)
        if "answer_type" not in model.fields:
            raise Unhandled(
                DICT_CALL,
                f"the question model `{model.name}` has no `answer_type` field, so its JSON is "
                "no question for JP: give it one to have it rewritten",
            )
        default = model.fields["answer_type"].value
        if default is not None and model.defaults["answer_type"] is not None:
            answer_schema(model.defaults["answer_type"], _QUOTE, DICT_CALL, self._is_dict_call)  # type: ignore[arg-type]

    def _shared_rewrites(self) -> list[tuple[cst.CSTNode, Rebuild]]:
        out: list[tuple[cst.CSTNode, Rebuild]] = []
        field = self._field_name()
        for model in self.models.values():
            out.append((model.node, self._class_rewrite(model, field)))
        for call, model in self.constructions.values():
            if model.question:
                out.append((call, _question_call))
        if self._mcp:
            out += self._results
        else:
            out += [(dump, _dump_rewrite) for dump in self.dumps]
        importer = self._import_rewrite() if self._needs_field() else None
        if importer is not None:
            out.append(importer)
        return out

    def _builds_errors(self, model: Model) -> bool:
        """Whether a construction of `model` builds an error (its class then needs `isError`
        and `meta`); every construction's tag is known once the findings are planned."""
        return "error" in self._tags.get(model.name, set())

    def _needs_field(self) -> bool:
        """Whether a rewritten class calls `Field` (a success-only class does not)."""
        return any(
            (model.question and {"answer_type", "pre_amble"} & set(model.fields))
            or (not model.question and self._builds_errors(model))
            for model in self.models.values()
        )

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

    def _import_rewrite(self) -> tuple[cst.CSTNode, Rebuild] | None:
        """Binds `Field` at the top, in `from pydantic import …` or after the last import."""
        if self._field_name() != "Field" or "Field" in self._field_call:
            return None
        last: cst.SimpleStatementLine | None = None
        for statement in self._module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if m.matches(small, m.ImportFrom(module=m.Name("pydantic"), relative=[])) and not (
                    isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
                ):
                    return (small, _with_field)
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    last = statement
        assert last is not None  # `BaseModel` is imported, or the file has no model
        return (last, _then_field_import)

    def _class_rewrite(self, model: Model, field: str) -> Rebuild:
        def rewrite(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.ClassDef) and isinstance(updated.body, cst.IndentedBlock)
            body: list[cst.BaseStatement] = []
            done = False
            for statement in updated.body.body:
                small = (
                    statement.body[0] if isinstance(statement, cst.SimpleStatementLine) else None
                )
                if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
                    body.append(statement)
                    continue
                assert isinstance(statement, cst.SimpleStatementLine)
                key = small.target.value
                if model.question:
                    body.append(_question_field(statement, small, key, model, field))
                elif not done:
                    body += _envelope_fields(statement, self._builds_errors(model), field)
                    done = True
            return updated.with_changes(body=updated.body.with_changes(body=body))

        return rewrite


def _code(node: cst.CSTNode | None) -> str:
    text = cst.Module([]).code_for_node(node) if node is not None else "…"
    return text if len(text) <= 60 else text[:57] + "…"


def _keyword(arg: cst.Arg) -> str | None:
    return arg.keyword.value if arg.keyword is not None and not arg.star else None


def _comma() -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _commas(args: Sequence[cst.Arg]) -> list[cst.Arg]:
    """Keeps each argument's own comma (and what follows it) but the last one's."""
    out = list(args)
    for index, arg in enumerate(out[:-1]):
        if not isinstance(arg.comma, cst.Comma):
            out[index] = arg.with_changes(comma=_comma())
    if out and isinstance(out[-1].comma, cst.Comma):
        out[-1] = out[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return out


def _pre_amble_block(value: cst.BaseExpression) -> cst.BaseElement:
    """A string written out is one text block; anything else one when it is not None."""
    if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return cst.Element(build.text_block(value, _QUOTE))
    return build.optional_text_block(value, _QUOTE)


def _meta_named(entry: NewEntry) -> NewEntry:
    return dataclasses.replace(entry, key="meta") if entry.key == "_meta" else entry


def _unchanged(updated: cst.CSTNode) -> cst.CSTNode:
    return updated


def _line(code: str, like: cst.SimpleStatementLine) -> cst.SimpleStatementLine:
    parsed = cst.parse_statement(code)
    assert isinstance(parsed, cst.SimpleStatementLine)
    return like.with_changes(body=parsed.body)


def _envelope_fields(
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


def _question_field(
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
            if _keyword(a) not in (None, "default", "serialization_alias", "alias")
        ]
        args = [
            *(
                [
                    cst.Arg(
                        answer_schema(default, _QUOTE, DICT_CALL),
                        keyword=cst.Name("default"),
                        equal=_EQUAL,
                    )
                ]
                if default is not None
                else []
            ),
            *kept,
            cst.Arg(
                build.string("schema", _QUOTE),
                keyword=cst.Name("serialization_alias"),
                equal=_EQUAL,
            ),
        ]
        new = cst.AnnAssign(
            cst.Name(SCHEMA_FIELD),
            cst.Annotation(cst.Name("dict")),
            cst.Call(cst.parse_expression(field), _commas(args)),
        )
        return statement.with_changes(body=[new])
    if key == "pre_amble":
        value = small.value
        if isinstance(value, cst.Call) and key in model.field_calls:
            excluded = value.with_changes(
                args=_commas(
                    [
                        *value.args,
                        cst.Arg(cst.Name("True"), keyword=cst.Name("exclude"), equal=_EQUAL),
                    ]
                )
            )
        else:
            default = cst.Module([]).code_for_node(value) if value is not None else None
            given = f"default={default}, " if default is not None else ""
            excluded = cst.parse_expression(f"{field}({given}exclude=True)")
        return statement.with_changes(
            body=[small.with_changes(value=excluded, equal=cst.AssignEqual())]
        )
    return statement


def _question_call(updated: cst.CSTNode) -> cst.CSTNode:
    """`answer_type=X` → `answer_schema=<the schema X maps to>`."""
    assert isinstance(updated, cst.Call)
    args = [
        arg.with_changes(
            keyword=cst.Name(SCHEMA_FIELD),
            value=answer_schema(arg.value, _QUOTE, DICT_CALL, shaped_like_dict_call),
        )
        if _keyword(arg) == "answer_type"
        else arg
        for arg in updated.args
    ]
    return updated.with_changes(args=args)


def _dump_rewrite(updated: cst.CSTNode) -> cst.CSTNode:
    """The dump with `by_alias=True, exclude_none=True` (other options kept)."""
    assert isinstance(updated, cst.Call)
    kept = [a for a in updated.args if _keyword(a) not in ("by_alias", "exclude_none")]
    added = [
        cst.Arg(cst.Name("True"), keyword=cst.Name(name), equal=_EQUAL)
        for name in ("by_alias", "exclude_none")
    ]
    return updated.with_changes(args=_commas([*added, *kept]))


def _with_field(updated: cst.CSTNode) -> cst.CSTNode:
    assert isinstance(updated, cst.ImportFrom) and not isinstance(updated.names, cst.ImportStar)
    names = list(updated.names)
    names[-1] = names[-1].with_changes(comma=_comma())
    return updated.with_changes(names=[*names, cst.ImportAlias(cst.Name("Field"))])


def _then_field_import(updated: cst.CSTNode) -> cst.FlattenSentinel[cst.CSTNode]:
    assert isinstance(updated, cst.SimpleStatementLine)
    return cst.FlattenSentinel([updated, cst.parse_statement("from pydantic import Field\n")])


@dataclass(frozen=True)
class Planned:
    """The findings of a file's pydantic Outcome models, and where each of their sites is."""

    findings: list[Finding]
    sites: dict[int, str]  # id of each Outcome construction → `line:col`

    @property
    def anchors(self) -> frozenset[int]:
        return frozenset(self.sites)


def pydantic_findings(
    module: cst.Module, is_dict_call: IsDictCall, *, mcp: bool = False
) -> Planned:
    """The findings of the file's pydantic Outcome models (the other transforms' findings
    for the calls they anchor give way to these)."""
    family = Family(module, is_dict_call, mcp)
    if not family.models:
        return Planned([], {})
    found = family.findings(_ADVICE)
    return Planned(found, {id(f.anchor): family.where(f.anchor) for f in found})


_ASK = (
    "a needs_input Outcome in an MCP server has no MCP result: ask with elicitation instead "
    "(`answer = await ctx.elicit(message=…, schema=Ask)` with `ctx: Context` and a "
    "`class Ask(BaseModel)` holding the answer), then run the codemod again to have it rewritten"
)
_ADVICE = " (a model is rewritten with all its constructions and dumps, or not at all)"


def together(findings: list[Finding], planned: Planned) -> list[Finding]:
    """A family of models is rewritten whole: when one of its sites is skipped (`# jp-migrate:
    skip`) or refused, the others are reported as blocked by it."""
    rewritten = {id(f.anchor) for f in findings if f.action == "rewritten"}
    ours = rewritten & planned.anchors
    left = [where for anchor, where in planned.sites.items() if anchor not in rewritten]
    if not ours or not left:
        return findings
    reason = (
        f"; left as it is because the construction at {left[0]} of the same model is skipped "
        "or refused, and the models are rewritten together: make that one rewritable (or "
        "build it as a dict) to have it rewritten"
    )
    return [
        dataclasses.replace(
            f,
            action="unhandled",
            reason=f.reason.replace("→ RFD 058 envelope", "") + reason,
            rewrites=(),
            outcome=None,
        )
        if id(f.anchor) in ours
        else f
        for f in findings
    ]
