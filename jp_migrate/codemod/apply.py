"""Apply the planned rewrites in one bottom-up pass (inner sites first, then the ones around them)."""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from jp_migrate.codemod.sites import Finding, Rebuild


class _Apply(cst.CSTTransformer):
    def __init__(self, rewrites: dict[int, Rebuild]) -> None:
        super().__init__()
        self._rewrites = rewrites

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):  # type: ignore[no-untyped-def, override]
        rebuild = self._rewrites.get(id(original_node))
        return updated_node if rebuild is None else rebuild(updated_node)


def apply(module: cst.Module, findings: Iterable[Finding]) -> cst.Module:
    rewrites = {
        id(node): rebuild
        for f in findings
        if f.action == "rewritten"
        for node, rebuild in f.rewrites
    }
    if not rewrites:
        return module
    return module.visit(_Apply(rewrites))
