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
from dataclasses import dataclass

import libcst as cst
import libcst.matchers as m

from jp_migrate.codemod import build
from jp_migrate.codemod.entries import NewEntry, call_entries, const_str, rebuild
from jp_migrate.codemod.mapping import (
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
from jp_migrate.codemod.pydantic_family import Family, Model, called, code, may_hold_models
from jp_migrate.codemod.pydantic_mcp import result_rewrites
from jp_migrate.codemod.pydantic_rebuild import (
    EQUAL,
    QUOTE,
    comma,
    commas,
    dump_rewrite,
    envelope_fields,
    keyword_of,
    meta_named,
    pre_amble_block,
    question_call,
    question_field,
    then_field_import,
    unchanged,
    with_field,
)
from jp_migrate.codemod.sites import DICT_CALL, MCP_SERVER, Finding, Rebuild


class Planner(Family):
    """The rewrite of a family: one finding per Outcome construction, or its refusals."""

    def __init__(self, module: cst.Module, is_dict_call: IsDictCall, mcp: bool = False) -> None:
        """`mcp`: the file is an MCP server, whose tools return the dumps as MCP results."""
        self._mcp = mcp
        self._results: list[tuple[cst.CSTNode, Rebuild]] = []
        self._tags: dict[str, set[str]] = {}  # model → the tags its constructions build
        super().__init__(module, is_dict_call)

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
                plans.append((call, self._guess_tag(call, model), unchanged))
        for call, model in sorted(self.constructions.values(), key=lambda p: self._order(p[0])):
            if model.question:
                try:
                    self._question_construction(call, model)
                except Unhandled as exc:
                    problems.append(f"{exc.reason} (at {self.where(call)})")
        if self._mcp:
            problems += self._mcp_problems([tag for _call, tag, _ in plans])
        if self._imports_field() and self._import_rewrite() is None:
            problems.append(
                "the file has no top-level import to put `from pydantic import Field` after "
                "(the rewritten model needs it): import it at the top to have it rewritten"
            )
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

    def _refusal(self, tag: str, call: cst.Call, problem: str, advice: str) -> str:
        model = self.constructions[id(call)][1].name
        return (
            f"{tag} Outcome built by `{called(call)}(…)`, the pydantic model `{model}` of this "
            f"file: not rewritten, since {problem}{advice}"
        )

    def _guess_tag(self, call: cst.Call, model: Model) -> str:
        given = next((const_str(a.value) for a in call.args if keyword_of(a) == "type"), None)
        return given or model.tag or "an"

    def _tag(self, call: cst.Call, model: Model) -> str:
        given = [a for a in call.args if keyword_of(a) == "type"]
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
            keyword = keyword_of(arg)
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
            if key not in given and key in model.unusable:
                raise Unhandled(
                    DICT_CALL,
                    f"`{called(call)}(…)` leaves out `{key}`, whose default "
                    f"(`{code(model.fields[key].value)}`) the class evaluates once: pass "
                    f"`{key}=` to have it rewritten",
                )
            if key not in given and default is not None:
                args.append(cst.Arg(default, keyword=cst.Name(key), equal=EQUAL))
        return call.with_changes(args=commas(args))

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
            new = envelope_entries(tag, entries, QUOTE, DICT_CALL, is_dict_call)
        rebuilt = rebuild(call, [meta_named(e) for e in new], QUOTE)
        assert isinstance(rebuilt, cst.Call)
        return rebuilt

    def _question_model(self) -> Model | None:
        return next((model for model in self.models.values() if model.question), None)

    def _question_blocks(self, value: cst.BaseExpression, analysing: bool) -> cst.List:
        if isinstance(value, cst.Dict) or (
            self._is_dict_call(value) if analysing else shaped_like_dict_call(value)
        ):
            return question_content(value, QUOTE, DICT_CALL, shaped_like_dict_call)
        model = self._question_model()
        pre: cst.BaseElement | None = None
        if isinstance(value, cst.Call) and model is not None and called(value) == model.name:
            pre_arg = next((a for a in value.args if keyword_of(a) == "pre_amble"), None)
            if pre_arg is not None and m.matches(pre_arg.value, m.Name("None")):
                value = value.with_changes(args=commas([a for a in value.args if a is not pre_arg]))
            elif pre_arg is not None:
                before = value.args[: list(value.args).index(pre_arg)]
                if not inert(pre_arg.value) and not all(inert(a.value) for a in before):
                    raise Unhandled(
                        DICT_CALL,
                        "moving the pre_amble before the question would evaluate it before "
                        "the question's other fields: pass `pre_amble=` first to have it rewritten",
                    )
                pre = pre_amble_block(pre_arg.value)
                value = value.with_changes(args=commas([a for a in value.args if a is not pre_arg]))
            elif (fallback := model.defaults.get("pre_amble")) is not None:
                pre = pre_amble_block(fallback)
        elif isinstance(value, cst.Name) and model is None:
            if analysing and not self._bound_to_dicts(value):
                raise Unhandled(
                    DICT_CALL,
                    f"the question `{value.value}` is not always bound to a dict: assign it "
                    "from a dict literal only to have it rewritten",
                )
            return build.question_of_held(value, QUOTE)  # its content built when the tool runs
        elif isinstance(value, cst.Name) and model is not None:
            if analysing:
                self._held_question(value, model)
            if "pre_amble" in model.fields:
                pre = build.optional_text_block(cst.Attribute(value, cst.Name("pre_amble")), QUOTE)
        else:
            raise Unhandled(
                DICT_CALL,
                f"the question `{code(value)}` is neither a dict nor a name bound to "
                f"`{model.name if model else 'Question'}(…)`: bind it to a name first "
                "(`q = Question(…)`) to have it rewritten",
            )
        block = cst.Element(build.question_block(value, QUOTE))
        if pre is None:
            return cst.List([block])
        return cst.List([pre.with_changes(comma=comma()), block])

    def _bound_to_dicts(self, name: cst.Name) -> bool:
        values = [self._bound_value(b) for b in self.bindings(name)]
        return bool(values) and all(
            v is not None and (isinstance(v, cst.Dict) or self._is_dict_call(v)) for v in values
        )

    def _held_question(self, name: cst.Name, model: Model) -> None:
        """`question=q`: every binding of `q` must be a construction of the question model."""
        bindings = self.bindings(name)
        for binding in bindings:
            value = self._bound_value(binding)
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
            if keyword_of(arg) is None:
                raise Unhandled(
                    DICT_CALL,
                    f"`{called(call)}(…)` passes a positional or `**` argument: name each field to have it rewritten",
                )
            if keyword_of(arg) == "answer_type":
                answer_schema(arg.value, QUOTE, DICT_CALL, self._is_dict_call)
        if "answer_type" in model.unusable:
            raise Unhandled(
                DICT_CALL,
                f"the default of `{model.name}.answer_type` is not written out (a literal or a "
                "name): write it out to have it rewritten",
            )
        if "answer_type" not in model.fields:
            raise Unhandled(
                DICT_CALL,
                f"the question model `{model.name}` has no `answer_type` field, so its JSON is "
                "no question for JP: give it one to have it rewritten",
            )
        default = model.defaults["answer_type"]
        if default is not None:
            answer_schema(default, QUOTE, DICT_CALL, self._is_dict_call)

    def _shared_rewrites(self) -> list[tuple[cst.CSTNode, Rebuild]]:
        out: list[tuple[cst.CSTNode, Rebuild]] = []
        field = self._field_name()
        for model in self.models.values():
            out.append((model.node, self._class_rewrite(model, field)))
        for call, model in self.constructions.values():
            if model.question:
                out.append((call, question_call))
        if self._mcp:
            out += self._results
        else:
            out += [(dump, dump_rewrite) for dump in self.dumps]
        importer = self._import_rewrite() if self._imports_field() else None
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

    def _imports_field(self) -> bool:
        """Whether the rewrite must bind `Field` itself (the file neither imports it nor
        `import pydantic`)."""
        return (
            self._needs_field()
            and self._field_name() == "Field"
            and "Field" not in self._field_call
        )

    def _import_rewrite(self) -> tuple[cst.CSTNode, Rebuild] | None:
        """Binds `Field` at the top, in `from pydantic import …` or after the last import;
        None when there is no top-level import to follow."""
        last: cst.SimpleStatementLine | None = None
        for statement in self._module.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if m.matches(small, m.ImportFrom(module=m.Name("pydantic"), relative=[])) and not (
                    isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
                ):
                    return (small, with_field)
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    last = statement
        return (last, then_field_import) if last is not None else None

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
                    body.append(question_field(statement, small, key, model, field))
                elif not done:
                    body += envelope_fields(statement, self._builds_errors(model), field)
                    done = True
            return updated.with_changes(body=updated.body.with_changes(body=body))

        return rewrite


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
    if not may_hold_models(module):
        return Planned([], {})
    family = Planner(module, is_dict_call, mcp)
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
