"""Is this call really `dict(...)` / `json.loads(...)`? Answered by libcst's QualifiedNameProvider.

Scope analysis costs several times a parse, so it is resolved only when the
answer is in doubt (the file might rebind the name `dict`, or a string holding
an Outcome is passed to some call), and at most once per file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import libcst as cst
from libcst.metadata import (
    BaseAssignment,
    MetadataWrapper,
    QualifiedName,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)
from libcst.metadata.base_provider import LazyValue

# Anything that could bind the name `dict` in a module: then ask the scope analysis.
_BINDS_DICT = re.compile(
    r"\b(?:def|class|import|as|for|global|nonlocal)\s+dict\b|\bdict\s*(?::[^=\n]*)?=(?!=)"
    r"|\bdef\s+\w+\s*\([^)]*?[(,]\s*\**dict\s*[,)=:]|\blambda\b[^:\n]*\bdict\b|\bdict\s*:=|,\s*dict\s*(?:,|\)\s*=|\s*=)"
)
_SINKS = {
    "json.dumps": "json.dumps",
    "json.dump": "json.dump",
    "builtins.print": "print",
    "sys.stdout.write": "sys.stdout.write",
}
_LOADS = frozenset({"json.loads", "json.load", "orjson.loads", "ujson.loads", "simplejson.loads"})


class Names:
    def __init__(
        self, module: cst.Module, source: str, typed: frozenset[str] = frozenset()
    ) -> None:
        """`typed`: the file's TypedDicts that build Outcomes: called, they build a dict."""
        self._module = module
        self._typed = typed
        self._dict_may_be_rebound = bool(_BINDS_DICT.search(source))
        self._resolved: Mapping[cst.CSTNode, object] | None = None
        self._scopes: Mapping[cst.CSTNode, object] | None = None

    def assignments(self, name: cst.Name) -> list[BaseAssignment]:
        """Every binding of `name` in the scope it is read in (libcst's ScopeProvider)."""
        if self._scopes is None:
            wrapper = MetadataWrapper(self._module, unsafe_skip_copy=True)
            self._scopes = wrapper.resolve(ScopeProvider)
        scope = self._scopes.get(name)
        if not isinstance(scope, Scope):
            return []
        return list(scope[name.value])

    def qualified(self, node: cst.CSTNode) -> set[str]:
        if self._resolved is None:
            wrapper = MetadataWrapper(self._module, unsafe_skip_copy=True)
            self._resolved = wrapper.resolve(QualifiedNameProvider)
        names = self._resolved.get(node, set())
        if isinstance(
            names, LazyValue
        ):  # QualifiedNameProvider computes each node's names on demand
            names = names()
        return {q.name for q in names if isinstance(q, QualifiedName)}  # type: ignore[union-attr]

    def shape(self, node: cst.BaseExpression) -> bool:
        """Shaped like a call that builds a dict (for rebuilding a site already checked)."""
        return (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and (node.func.value == "dict" or node.func.value in self._typed)
        )

    def is_dict_call(self, node: cst.BaseExpression) -> bool:
        """`dict(...)`, the builtin, not a local function or import of that name; or a call
        of one of the file's Outcome TypedDicts with keyword arguments only."""
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value in self._typed
        ):
            return all(a.keyword is not None and not a.star for a in node.args)
        return (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value == "dict"
            and (not self._dict_may_be_rebound or "builtins.dict" in self.qualified(node.func))
        )

    def is_json_loads(self, node: cst.Call) -> bool:
        """`json.loads`, however imported (`import json as j`, `from json import loads as l`)."""
        return bool(self.qualified(node.func) & _LOADS)

    def sink(self, node: cst.Call) -> str | None:
        """`json.dumps`, `print` or `sys.stdout.write` (however imported), by its usual name."""
        return next((_SINKS[q] for q in sorted(self.qualified(node.func)) if q in _SINKS), None)
