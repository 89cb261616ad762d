"""Line and column of the nodes a site is anchored on, without libcst's PositionProvider.

`PositionProvider` regenerates the whole file to count characters, which
costs more than the parse. The stdlib `ast` (C, ~10x faster) has positions
for the same syntax: the k-th `Dict`/`Call`/`Subscript`/string expression in
source order is the same node in both trees. Every anchor is checked against
its `ast` twin; on any disagreement (odd f-strings, say) the file falls back
to `PositionProvider`, so a position is never wrong, only sometimes slower.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from jp_migrate.codemod.entries import literal_value
from jp_migrate.codemod.scan import Scan

_NEWLINE = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Span:
    line: int  # 1-based
    column: int  # 1-based, in characters
    end_line: int


def _ast_nodes(tree: ast.AST) -> dict[str, list[ast.expr]]:
    """Dicts, calls, subscripts and string expressions as libcst sees them (one walk).

    In `ast`, an f-string's literal parts and format spec are nodes of their
    own; in libcst they are not string expressions, so they are left out.
    """
    out: dict[str, list[ast.expr]] = {"dict": [], "call": [], "subscript": [], "string": []}
    inner: set[int] = set()
    strings: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            out["dict"].append(node)
        elif isinstance(node, ast.Call):
            out["call"].append(node)
        elif isinstance(node, ast.Subscript):
            out["subscript"].append(node)
        elif isinstance(node, ast.JoinedStr):
            strings.append(node)
            inner.update(id(v) for v in node.values if isinstance(v, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            strings.append(node)
        elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            inner.add(id(node.format_spec))
    out["string"] = [n for n in strings if id(n) not in inner]
    return {k: _in_source_order(v) for k, v in out.items()}


def _in_source_order(nodes: Iterable[ast.expr]) -> list[ast.expr]:
    # Nodes sharing a first token are nested: the outer (longer) one comes first, as in a pre-order walk.
    return sorted(
        nodes,
        key=lambda n: (n.lineno, n.col_offset, -(n.end_lineno or 0), -(n.end_col_offset or 0)),
    )


def _agrees(cst_node: cst.CSTNode, twin: ast.expr) -> bool:
    if isinstance(cst_node, cst.Dict):
        return isinstance(twin, ast.Dict) and len(twin.keys) == len(cst_node.elements)
    if isinstance(cst_node, cst.Call):
        return isinstance(twin, ast.Call) and len(twin.args) + len(twin.keywords) == len(
            cst_node.args
        )
    if isinstance(cst_node, cst.Subscript):
        return isinstance(twin, ast.Subscript)
    if isinstance(cst_node, (cst.SimpleString, cst.ConcatenatedString)):
        value = (
            literal_value(cst_node)
            if isinstance(cst_node, cst.SimpleString)
            else cst_node.evaluated_value
        )
        if value is None:  # an implicit concatenation with an f-string part
            return isinstance(twin, ast.JoinedStr)
        return isinstance(twin, ast.Constant) and twin.value == value
    if isinstance(cst_node, cst.FormattedString):
        return isinstance(twin, ast.JoinedStr)
    return False


def _span(twin: ast.expr, lines: list[str]) -> Span:
    line = lines[twin.lineno - 1] if twin.lineno - 1 < len(lines) else ""
    column = len(line.encode("utf-8")[: twin.col_offset].decode("utf-8", errors="replace"))
    return Span(twin.lineno, column + 1, twin.end_lineno or twin.lineno)


class Locator:
    """Spans of anchor nodes, exact: from `ast` twins, or from PositionProvider if any twin disagrees."""

    def __init__(self, source: str, module: cst.Module, found: Scan) -> None:
        self._source = source
        self._module = module
        self._found = found
        self._spans: dict[int, Span] = {}
        self._twins: dict[str, list[ast.expr]] | None = None
        self._index: dict[int, tuple[str, int]] = {}
        self._lines: list[str] = []
        self._fallback: Mapping[cst.CSTNode, CodeRange] | None = None

    def prepare(self, anchors: Iterable[cst.CSTNode]) -> None:
        for anchor in anchors:
            self.span(anchor)

    def span(self, anchor: cst.CSTNode) -> Span:
        known = self._spans.get(id(anchor))
        if known is not None:
            return known
        found = self._from_ast(anchor) if self._fallback is None else None
        if found is None:
            found = self._from_libcst(anchor)
        self._spans[id(anchor)] = found
        return found

    def _prepare_ast(self) -> dict[str, list[ast.expr]]:
        if self._twins is None:
            try:
                tree = ast.parse(self._source)
            except (SyntaxError, ValueError):
                self._twins = {}
                return self._twins
            self._lines = _NEWLINE.split(self._source)
            found = self._found
            ours: dict[str, list[cst.CSTNode]] = {
                "dict": [n for n, _ in found.dicts],
                "call": [n for n, _ in found.calls],
                "subscript": [n for n, _ in found.subscripts],
                "string": list(found.strings),
            }
            twins = _ast_nodes(tree)
            self._twins = {k: v for k, v in twins.items() if len(v) == len(ours[k])}
            for kind, nodes in ours.items():
                self._index.update((id(n), (kind, i)) for i, n in enumerate(nodes))
        return self._twins

    def _from_ast(self, anchor: cst.CSTNode) -> Span | None:
        twins = self._prepare_ast()
        where = self._index.get(id(anchor))
        if where is None or where[0] not in twins:
            return None
        twin = twins[where[0]][where[1]]
        if not _agrees(anchor, twin):
            return None
        return _span(twin, self._lines)

    def _from_libcst(self, anchor: cst.CSTNode) -> Span:
        if self._fallback is None:
            self._fallback = MetadataWrapper(self._module, unsafe_skip_copy=True).resolve(
                PositionProvider
            )
        where = self._fallback[anchor]
        return Span(where.start.line, where.start.column + 1, where.end.line)
