"""The SPEC §2 legacy → RFD 058 mapping table, as operations on entries.

| legacy                             | new                                                          |
|------------------------------------|--------------------------------------------------------------|
| `type: success`, `content: c`      | `content: [text(c)]`                                         |
| `type: error`, `message: m`, …     | `content: [text(m)]`, `isError: True`, `_meta: {error: {…}}` |
| `type: needs_input`, `question: q` | `content: [text(pre_amble)?, question(q')]`                  |
| `answer_type: "Boolean"`/`"Text"`  | `schema: {"type": "boolean"}` / `{"type": "string"}`         |
| `answer_type: {"Select": {…o}}`    | `schema: {"type": "string", "enum": o}`                      |

Values are moved, never evaluated. When the new layout would evaluate two
values with side effects in another order, the site is unhandled instead.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from jp_migrate.codemod import build
from jp_migrate.codemod.entries import Entry, NewEntry, const_str, entries_of, rebuild
from jp_migrate.codemod.sites import ERROR_DICT, NEEDS_INPUT_DICT, SPREAD, SUCCESS_DICT

TAGS = ("success", "error", "needs_input")
RULE_FOR_TAG = {"success": SUCCESS_DICT, "error": ERROR_DICT, "needs_input": NEEDS_INPUT_DICT}
# Keys only a legacy Outcome has (besides `type`): their presence marks a dict as one.
LEGACY_KEYS = frozenset({"content", "message", "trace", "transient", "question"})
OUTCOME_KEYS = LEGACY_KEYS | {"type"}
REQUIRED = {
    "success": ("content",),
    "error": ("message", "trace", "transient"),
    "needs_input": ("question",),
}
META_KEYS = ("trace", "transient")
_CLASHES = {
    "success": {"isError", "_meta"},
    "error": {"content", "isError", "_meta"},
    "needs_input": {"content", "isError", "_meta"},
}


def could_be_outcome(keys: set[str | None]) -> bool:
    """Nothing but Outcome keys, and all the keys one tag requires: a dynamic `type` there is a site."""
    return keys <= OUTCOME_KEYS and any(set(REQUIRED[tag]) <= keys for tag in TAGS)


IsDictCall = Callable[[cst.BaseExpression], bool]


def shaped_like_dict_call(node: cst.BaseExpression) -> bool:
    """For rebuilding a site already checked: updated nodes are new objects scope analysis never saw."""
    return (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict"
    )


class Unhandled(Exception):
    """A site the codemod will not guess about: reported as `rule: reason`, file left as is."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(reason)
        self.rule = rule
        self.reason = reason


def inert(node: cst.CSTNode | None) -> bool:
    """True when evaluating `node` earlier or later cannot be observed (no calls, no awaits)."""
    if node is None or isinstance(
        node, (cst.Name, cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.Ellipsis)
    ):
        return True
    if isinstance(node, cst.ConcatenatedString):
        return inert(node.left) and inert(node.right)
    if isinstance(node, cst.FormattedString):
        return all(
            inert(p.expression) for p in node.parts if isinstance(p, cst.FormattedStringExpression)
        )
    if isinstance(node, cst.Attribute):
        return inert(node.value)
    if isinstance(node, cst.UnaryOperation):
        return inert(node.expression)
    if isinstance(node, cst.Subscript):
        return inert(node.value) and all(
            isinstance(s.slice, cst.Index) and inert(s.slice.value) for s in node.slice
        )
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(isinstance(e, cst.Element) and inert(e.value) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(
            isinstance(e, cst.DictElement) and inert(e.key) and inert(e.value)
            for e in node.elements
        )
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
        return inert(node.left) and inert(node.right)
    if isinstance(node, cst.Comparison):
        return inert(node.left) and all(inert(t.comparator) for t in node.comparisons)
    if isinstance(node, cst.IfExp):
        return inert(node.test) and inert(node.body) and inert(node.orelse)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        # Builtins that only read their arguments (a shadowed name is a user's function: not inert).
        return node.func.value in _PURE_BUILTINS and all(
            not a.star and inert(a.value) for a in node.args
        )
    return False


_PURE_BUILTINS = frozenset(
    {"len", "str", "repr", "int", "float", "bool", "abs", "round", "min", "max", "sum"}
    | {"sorted", "list", "tuple", "dict", "set", "frozenset", "isinstance"}
)


def _check_order(source_order: list[Entry], new_order: list[Entry], rule: str, what: str) -> None:
    """Unhandled only when two values that are not inert trade places (the exact judgement)."""
    rank = {id(e): i for i, e in enumerate(new_order)}
    live = [e for e in source_order if id(e) in rank and not inert(e.value)]
    for i, earlier in enumerate(live):
        for later in live[i + 1 :]:
            if rank[id(later)] < rank[id(earlier)]:
                raise Unhandled(
                    rule,
                    f"moving {what} would evaluate {later.key or 'a value'} before "
                    f"{earlier.key or 'a value'}: put {later.key} first in the source "
                    "(or compute one of them into a variable before) to have it rewritten",
                )


def _unknown_keys(tag: str, entry: Entry) -> str:
    """What stands in the way when one of an Outcome's keys is not a constant string."""
    value = cst.Module([]).code_for_node(entry.value)
    keys = ", ".join(f"`{k}`" for k in REQUIRED[tag])
    if isinstance(entry.item, cst.StarredDictElement) or (
        isinstance(entry.item, cst.Arg) and entry.item.star == "**"
    ):
        return (
            f"`**{value}` in a {tag} Outcome: the codemod does not follow what a spread holds; "
            f"write the keys it brings ({keys}) into the Outcome itself, as strings, to have "
            "it rewritten"
        )
    key = entry.item.key if isinstance(entry.item, cst.DictElement) else None
    shown = f"`{cst.Module([]).code_for_node(key)}` " if key is not None else ""
    return (
        f"a key {shown}that is not a constant string in a {tag} Outcome: "
        "write its keys out as strings (or bind each name once to its string) to have it "
        "rewritten"
    )


def _check_keys(tag: str, entries: list[Entry], rule: str, partial: bool) -> None:
    unknown = [e for e in entries if e.key is None]
    if unknown:
        raise Unhandled(SPREAD, _unknown_keys(tag, unknown[0]))
    keys = {e.key for e in entries}
    missing = [k for k in REQUIRED[tag] if k not in keys]
    if missing and not partial:
        raise Unhandled(rule, f"incomplete {tag} Outcome: no {', '.join(repr(k) for k in missing)}")
    clash = sorted(keys & _CLASHES[tag])
    if clash:
        raise Unhandled(rule, f"key {clash[0]!r} would clash with the envelope")


_NOT_STR = (
    cst.Integer,
    cst.Float,
    cst.Imaginary,
    cst.List,
    cst.ListComp,
    cst.Dict,
    cst.DictComp,
    cst.Tuple,
    cst.Set,
    cst.SetComp,
    cst.GeneratorExp,
)
_NOT_STR_NAMES = frozenset({"None", "True", "False"})
_NOT_STR_CALLS = frozenset({"int", "float", "len", "bool", "sum", "list", "dict", "tuple", "set"})


def not_a_string(node: cst.BaseExpression) -> bool:
    """Visibly not a string (a number, None, a container, `len(…)`, either branch of `a if c else b`):
    the printed JSON is then no Outcome for JP, which shows it raw."""
    if isinstance(node, _NOT_STR):
        return True
    if isinstance(node, cst.Name):
        return node.value in _NOT_STR_NAMES
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    if isinstance(node, cst.IfExp):
        return not_a_string(node.body) or not_a_string(node.orelse)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.func.value in _NOT_STR_CALLS
    return False


def _text_value(e: Entry, quote: str, rule: str) -> cst.BaseExpression:
    """The text blocks of a `content`/`message` value, unless it is visibly not a string."""
    if not_a_string(e.value):
        raise Unhandled(
            rule, f"{e.key} is not a string: no Outcome for JP, which shows it as raw text"
        )
    return build.text_blocks(e.value, quote)


def success_entries(
    entries: list[Entry], quote: str, rule: str, *, partial: bool = False
) -> list[NewEntry]:
    _check_keys("success", entries, rule, partial)
    out: list[NewEntry] = []
    for e in entries:
        if e.key == "type":
            continue
        if e.key == "content":
            out.append(NewEntry("content", _text_value(e, quote, rule), e))
        else:
            out.append(NewEntry(e.key or "", e.value, e))
    return out


def error_entries(
    entries: list[Entry], quote: str, rule: str, *, partial: bool = False, meta_later: bool = False
) -> list[NewEntry]:
    """`meta_later`: trace/transient are assigned after this literal (key-by-key), so open `_meta` here."""
    _check_keys("error", entries, rule, partial)
    has_message = any(e.key == "message" for e in entries)
    meta = [e for e in entries if e.key in META_KEYS]
    out: list[NewEntry] = []
    evaluated: list[Entry] = []
    for e in entries:
        if e.key == "type":
            if not has_message:
                out.append(NewEntry("isError", cst.Name("True"), e))
        elif e.key == "message":
            out.append(NewEntry("content", _text_value(e, quote, rule), e))
            out.append(NewEntry("isError", cst.Name("True")))
            evaluated.append(e)
        elif e.key in META_KEYS:
            if e is meta[0]:
                pairs = [(m.key or "", m.value) for m in meta]
                out.append(NewEntry("_meta", build.error_meta(pairs, quote), e))
                evaluated.extend(meta)
        else:
            out.append(NewEntry(e.key or "", e.value, e))
            evaluated.append(e)
    if meta_later and not meta:
        out.append(NewEntry("_meta", build.error_meta([], quote)))
    _check_order(
        [e for e in entries if e.key != "type"], evaluated, rule, "trace/transient into _meta"
    )
    return out


def _comments(node: cst.CSTNode) -> int:
    """How many comments `node` holds (at any depth)."""

    class Count(cst.CSTVisitor):
        found = 0

        def visit_Comment(self, _node: cst.Comment) -> None:
            self.found += 1

    counter = Count()
    node.visit(counter)
    return counter.found


def answer_schema(
    node: cst.BaseExpression,
    quote: str,
    rule: str,
    is_dict_call: IsDictCall = shaped_like_dict_call,
) -> cst.BaseExpression:
    """The JSON Schema an `answer_type` becomes; Unhandled when it cannot, or when it holds
    a comment the schema would lose (a Select's options are kept as written, comments too)."""
    if isinstance(node, cst.Name) and node.value not in ("None", "True", "False"):
        return build.schema_of_held(node, quote)
    schema = _answer_schema(node, quote, rule, is_dict_call)
    kept = [e.value for e in schema.elements if isinstance(e, cst.DictElement)]
    if _comments(node) > sum(_comments(value) for value in kept):
        raise Unhandled(
            rule,
            "answer_type holds a comment its schema would lose: not rewritten (move the "
            "comment out of the answer_type, or edit it by hand)",
        )
    return schema


def _mapping(node: cst.BaseExpression, is_dict_call: IsDictCall) -> list[Entry] | None:
    """The entries of a dict literal or a `dict(...)` call (nested ones too), else None."""
    if isinstance(node, cst.Dict) or is_dict_call(node):
        return entries_of(node)
    return None


def _answer_schema(
    node: cst.BaseExpression, quote: str, rule: str, is_dict_call: IsDictCall
) -> cst.Dict:
    kind = const_str(node)
    entries = _mapping(node, is_dict_call)
    if entries is not None and len(entries) == 1:
        only = entries[0]
        tag = only.key
        if (
            tag in ("Boolean", "Text")
            and isinstance(only.value, cst.Name)
            and only.value.value == "None"
        ):
            kind = tag  # serde's one-key map spelling of a unit variant: {"Boolean": null}
        elif tag == "Select":
            inner = _mapping(only.value, is_dict_call)
            if inner is not None and len(inner) == 1 and inner[0].key == "options":
                return build.schema("string", quote, enum=inner[0].value)
    if kind == "Boolean":
        return build.schema("boolean", quote)
    if kind == "Text":
        return build.schema("string", quote)
    raise Unhandled(
        rule,
        'answer_type is not "Boolean", "Text", {"Select": {"options": …}} or a plain name: '
        "write it out (or hold it in a variable) to have it rewritten",
    )


class _AssignsOrYields(cst.CSTVisitor):
    found = False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        self.found = True
        return False

    def visit_Yield(self, node: cst.Yield) -> bool:
        self.found = True
        return False


def _assigns_or_yields(value: cst.BaseExpression) -> bool:
    """Whether `value` cannot be a comprehension's iterable (`build.optional_text_block`)."""
    visitor = _AssignsOrYields()
    value.visit(visitor)
    return visitor.found


def question_content(
    question: cst.BaseExpression, quote: str, rule: str, is_dict_call: IsDictCall
) -> cst.List:
    """`[text(pre_amble)?, {"type": "question", "question": {id, text, schema, default?}}]`."""
    if not (isinstance(question, cst.Dict) or is_dict_call(question)):
        raise Unhandled(rule, "the question is not a dict literal or dict(...) call")
    entries = entries_of(question)
    if any(e.key is None for e in entries):
        raise Unhandled(SPREAD, "`**` spread or non-constant key in a needs_input question")
    keys = {e.key for e in entries}
    missing = [k for k in ("id", "text", "answer_type") if k not in keys]
    if missing:
        raise Unhandled(rule, f"incomplete question: no {', '.join(repr(k) for k in missing)}")
    if "schema" in keys:
        raise Unhandled(rule, "key 'schema' would clash with the question's schema")
    pre = next((e for e in entries if e.key == "pre_amble"), None)
    out: list[NewEntry] = []
    for e in entries:
        if e.key == "answer_type":
            out.append(NewEntry("schema", answer_schema(e.value, quote, rule, is_dict_call), e))
        elif e is not pre:
            out.append(NewEntry(e.key or "", e.value, e))
    blocks: list[cst.BaseElement] = []
    if pre is not None:
        _check_order(
            entries,
            [pre, *(e for e in entries if e is not pre)],
            rule,
            "pre_amble before the question",
        )
        value = pre.value
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            blocks.append(cst.Element(build.text_block(value, quote)))
        elif not (isinstance(value, cst.Name) and value.value == "None"):
            if _assigns_or_yields(value):
                raise Unhandled(
                    rule, "pre_amble holds `:=` or `yield`, which a comprehension's iterable cannot"
                )
            blocks.append(build.optional_text_block(value, quote))
    assert isinstance(question, (cst.Dict, cst.Call))  # a literal or `is_dict_call`, checked above
    rebuilt = rebuild(question, out, quote)
    layout = build.multiline_layout(question)
    if layout is None:
        blocks.append(cst.Element(build.question_block(rebuilt, quote)))
        return cst.List(blocks)
    # The author wrote the question over several lines: one block per line, question one level deeper.
    blocks.append(cst.Element(build.question_block(build.indent_more(rebuilt, layout.step), quote)))
    return build.multiline_list(blocks, layout)


def needs_input_entries(
    entries: list[Entry],
    quote: str,
    rule: str,
    is_dict_call: IsDictCall,
    *,
    partial: bool = False,
    held: bool = False,
    runtime: bool = False,
) -> list[NewEntry]:
    """`held`: the question is a name or call whose literal becomes the content list itself;
    with `runtime`, a name whose content list is built from it when the tool runs."""
    _check_keys("needs_input", entries, rule, partial)
    out: list[NewEntry] = []
    for e in entries:
        if e.key == "type":
            continue
        if e.key == "question" and held and isinstance(e.value, cst.Name) and runtime:
            out.append(NewEntry("content", build.question_of_held(e.value, quote), e))
        elif e.key == "question" and held:
            out.append(NewEntry("content", e.value, e))
        elif e.key == "question":
            out.append(NewEntry("content", question_content(e.value, quote, rule, is_dict_call), e))
        else:
            out.append(NewEntry(e.key or "", e.value, e))
    return out


def envelope_entries(
    tag: str,
    entries: list[Entry],
    quote: str,
    rule: str,
    is_dict_call: IsDictCall,
    *,
    partial: bool = False,
    meta_later: bool = False,
    held: bool = False,
    runtime: bool = False,
) -> list[NewEntry]:
    if tag == "success":
        return success_entries(entries, quote, rule, partial=partial)
    if tag == "error":
        return error_entries(entries, quote, rule, partial=partial, meta_later=meta_later)
    return needs_input_entries(
        entries, quote, rule, is_dict_call, partial=partial, held=held, runtime=runtime
    )
