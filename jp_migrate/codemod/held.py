"""A needs_input question held in a variable or returned by a helper of the same file (form 1).

`q = {…}; return {"type": "needs_input", "question": q}` and
`return {"type": "needs_input", "question": ask_section(…)}` are rewritten by
turning the question's own literal, where it is written, into the content list
(`[text(pre_amble)?, question block]`) and the Outcome into `{"content": q}`.
Values stay where they are evaluated. This holds only when the literal is what
the name holds at that point and nothing else reads it:

- a variable: assigned once in the Outcome's function (a dict literal or
  `dict(...)`), and named nowhere else in that function;
- a helper: one function of that name in the file, every `return` a question
  literal, and every mention of its name a call that is some needs_input
  Outcome's question.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from jp_migrate.codemod.entries import Entry, const_str, entries_of
from jp_migrate.codemod.mapping import IsDictCall
from jp_migrate.codemod.scan import Scan, Scope


@dataclass(frozen=True)
class Held:
    literals: tuple[cst.Dict | cst.Call, ...]  # the question literals to rewrite where they stand
    what: str  # how a report names where they are: "`q`", "`ask_section(…)`"


class _Names(cst.CSTVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.count = 0

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.count += 1


def _mentions(scope: cst.CSTNode, name: str) -> int:
    counter = _Names(name)
    scope.visit(counter)
    return counter.count


class Questions:
    """Answers "which literal does this question value hold", once per file."""

    def __init__(self, module: cst.Module, found: Scan, is_dict_call: IsDictCall) -> None:
        self._module = module
        self._found = found
        self._is_dict_call = is_dict_call
        self._question_calls: set[int] | None = None

    def _literal(self, node: cst.BaseExpression) -> cst.Dict | cst.Call | None:
        if isinstance(node, cst.Dict) or (isinstance(node, cst.Call) and self._is_dict_call(node)):
            return node
        return None

    def held(self, value: cst.BaseExpression, scope: Scope) -> Held | str:
        """The literals `value` holds, or why they cannot be followed (said to the user)."""
        if isinstance(value, cst.Name):
            return self._variable(value.value, scope)
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name):
            return self._helper(value.func.value)
        return "the question is not a dict literal, a variable or a helper of this file"

    def spread(self, name: str, scope: Scope) -> Held | str:
        """The literal a `**name` spread in an Outcome holds, or why it cannot be followed."""
        return self._variable(name, scope, f"`{name}` (spread into the Outcome)", "the envelope")

    def _variable(
        self, name: str, scope: Scope, what: str = "", becomes: str = "a content list"
    ) -> Held | str:
        what = what or f"the question `{name}`"
        values = [v for s, n, v in self._found.assigns if s is scope and n == name]
        literal = self._literal(values[0]) if len(values) == 1 else None
        if literal is None:
            return (
                f"{what} is not assigned exactly once from a dict literal in "
                f"this function: build it in one `{name} = {{…}}` (or inline it)"
            )
        if _mentions(scope, name) != 2:  # the assignment and the Outcome
            return (
                f"{what} is used elsewhere too, and would become {becomes}: "
                "use it only in the Outcome (or inline it)"
            )
        return Held((literal,), f"`{name}`")

    def _helper(self, name: str) -> Held | str:
        functions = self._found.functions.get(name, [])
        if len(functions) != 1:
            return f"the question comes from `{name}(…)`, which is not one function of this file"
        function = functions[0]
        returns = [self._literal(v) for s, v in self._found.returns if s is function]
        literals = tuple(r for r in returns if r is not None)
        if not returns or len(literals) != len(returns):
            return (
                f"`{name}(…)` does not return a question dict literal on every path: "
                "return one literal (or build the question in the Outcome)"
            )
        calls = self._calls_as_question()
        mentions = _mentions(self._module, name)
        used = sum(
            1
            for call, _scope in self._found.calls
            if isinstance(call.func, cst.Name) and call.func.value == name and id(call) in calls
        )
        if mentions != used + 1:  # its `def` and its calls as a question
            return (
                f"`{name}(…)` is used for something else than a needs_input question too: "
                "keep a separate helper for that use"
            )
        return Held(literals, f"`{name}(…)`")

    def _calls_as_question(self) -> set[int]:
        if self._question_calls is None:
            self._question_calls = set()
            for node, _scope in self._found.dicts:
                self._add_question_of(entries_of(node))
            for call, _scope in self._found.calls:
                if self._is_dict_call(call):
                    self._add_question_of(entries_of(call))
        return self._question_calls

    def _add_question_of(self, entries: list[Entry]) -> None:
        if not any(e.key == "type" and const_str(e.value) == "needs_input" for e in entries):
            return
        assert self._question_calls is not None
        self._question_calls.update(id(e.value) for e in entries if e.key == "question")
