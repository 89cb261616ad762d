"""Is this call really `dict(...)` / `json.loads(...)`? Answered by libcst's QualifiedNameProvider.

Scope analysis costs several times a parse, so it is resolved only when the
answer is in doubt (the file might rebind the name `dict`, or a string holding
an Outcome is passed to some call), and at most once per file: every rule asks
the same `Metadata`.
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
DUMPS = frozenset({"json.dumps", "orjson.dumps", "ujson.dumps", "simplejson.dumps"})


class Metadata:
    """libcst's scope and qualified-name metadata of one module, resolved on first use.

    One `MetadataWrapper` for the file: QualifiedNameProvider reuses the
    ScopeProvider result it depends on.
    """

    def __init__(self, module: cst.Module) -> None:
        self._wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self._scopes: Mapping[cst.CSTNode, object] | None = None
        self._qualified: Mapping[cst.CSTNode, object] | None = None

    def assignments(self, name: cst.Name) -> list[BaseAssignment]:
        """Every binding of `name` in the scope it is read in (libcst's ScopeProvider)."""
        if self._scopes is None:
            self._scopes = self._wrapper.resolve(ScopeProvider)
        scope = self._scopes.get(name)
        if not isinstance(scope, Scope):
            return []
        return list(scope[name.value])

    def qualified(self, node: cst.CSTNode) -> set[str]:
        """What `node` names, however imported (`{"json.dumps"}` for `dumps` of `from json import dumps`)."""
        if self._qualified is None:
            self._qualified = self._wrapper.resolve(QualifiedNameProvider)
        names = self._qualified.get(node, set())
        if isinstance(
            names, LazyValue
        ):  # QualifiedNameProvider computes each node's names on demand
            names = names()
        if not isinstance(names, set):
            return set()
        return {q.name for q in names if isinstance(q, QualifiedName)}


class Names:
    def __init__(
        self, metadata: Metadata, source: str, typed: frozenset[str] = frozenset()
    ) -> None:
        """`typed`: the file's TypedDicts that build Outcomes: called, they build a dict."""
        self._metadata = metadata
        self._typed = typed
        self._dict_may_be_rebound = bool(_BINDS_DICT.search(source))

    def assignments(self, name: cst.Name) -> list[BaseAssignment]:
        return self._metadata.assignments(name)

    def qualified(self, node: cst.CSTNode) -> set[str]:
        return self._metadata.qualified(node)

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
