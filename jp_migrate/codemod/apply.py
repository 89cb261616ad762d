"""Apply the planned rewrites in one bottom-up pass (inner sites first, then the ones around them).

A statement a rewrite removes (`out["type"] = "success"`) takes its lines with it
in libcst, comments included; the README promises comments are untouched, so a
removed statement's leading lines and same-line comment move onto the statement
that follows it in its block (or to the block's end when it was the last one).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import libcst as cst

from jp_migrate.codemod.sites import Finding, Rebuild

Block = cst.Module | cst.IndentedBlock


def _kept_lines(statement: cst.CSTNode) -> list[cst.EmptyLine]:
    """The comment-bearing lines of a statement about to be removed (none: nothing to keep)."""
    leading: Sequence[cst.EmptyLine] = getattr(statement, "leading_lines", ())
    lines = list(leading)
    trailing = getattr(statement, "trailing_whitespace", None)
    if isinstance(trailing, cst.TrailingWhitespace) and trailing.comment is not None:
        lines.append(cst.EmptyLine(comment=trailing.comment))
    if not any(line.comment is not None for line in lines):
        return []  # blank lines alone go with the statement, as they always did
    return lines


def _with_lines(statement: cst.BaseStatement, lines: list[cst.EmptyLine]) -> cst.BaseStatement:
    return statement.with_changes(leading_lines=[*lines, *statement.leading_lines])


class _Apply(cst.CSTTransformer):
    def __init__(self, rewrites: dict[int, Rebuild]) -> None:
        super().__init__()
        self._rewrites = rewrites
        self._kept: dict[int, list[cst.EmptyLine]] = {}  # id(removed statement) → its comment lines

    # libcst types on_leave as giving back the kind it is given; a rebuild may give another.
    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNode]:
        rebuild = self._rewrites.get(id(original_node))
        if rebuild is not None:
            result = rebuild(updated_node)
            if isinstance(result, cst.RemovalSentinel):
                lines = _kept_lines(updated_node)
                if lines:
                    self._kept[id(original_node)] = lines
            return result
        if (
            self._kept
            and isinstance(original_node, (cst.Module, cst.IndentedBlock))
            and isinstance(updated_node, (cst.Module, cst.IndentedBlock))
        ):
            return self._carry(original_node, updated_node)
        return updated_node

    def _carry(self, original: Block, updated: Block) -> Block:
        """Move the comment lines of the statements removed from this block onto their successors."""
        removed = [id(s) in self._kept for s in original.body]
        body = list(updated.body)
        if len(body) != removed.count(False):
            return updated  # a statement was flattened into several: positions are unknown
        pending: list[cst.EmptyLine] = []
        index = 0
        for statement, gone in zip(original.body, removed, strict=True):
            if gone:
                pending += self._kept.pop(id(statement))
                continue
            if pending:
                body[index] = _with_lines(body[index], pending)
                pending = []
            index += 1
        if not pending:
            return updated.with_changes(body=body)
        return updated.with_changes(body=body, footer=[*pending, *updated.footer])


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
