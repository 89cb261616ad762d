"""One tool source in, its migrated text and sites out. Pure: no files, no printing.

precheck (substring) → parse → scan (one pass) → transforms decide → positions
→ `# jp-migrate: skip` → unhandled? leave the file as is : apply and regenerate.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from jp_migrate.codemod.apply import apply
from jp_migrate.codemod.keyed import keyed_findings
from jp_migrate.codemod.literal import call_findings, literal_findings
from jp_migrate.codemod.names import Names
from jp_migrate.codemod.positions import Locator
from jp_migrate.codemod.precheck import file_is_skipped, may_contain_outcome, skip_lines
from jp_migrate.codemod.reads import read_findings
from jp_migrate.codemod.scan import scan
from jp_migrate.codemod.sites import Finding
from jp_migrate.codemod.strings import string_findings
from jp_migrate.contract.report import FileStatus, Site


@dataclass(frozen=True)
class SourceResult:
    status: FileStatus  # migrated (would be, when not generated), unchanged, error, skipped
    sites: list[Site] = field(default_factory=list)
    output: str | None = None  # the new text, when asked for and changed
    message: str = ""

    @property
    def unhandled(self) -> bool:
        return any(s.action == "unhandled" for s in self.sites)


def syntax_error(source: str, exc: cst.ParserSyntaxError | None = None) -> str | None:
    """`line:col: syntax error: reason`, in CPython's words when it agrees the file is broken."""
    try:
        ast.parse(source)
    except SyntaxError as err:
        return f"{err.lineno}:{err.offset or 0}: syntax error: {err.msg}"
    except ValueError as err:  # null bytes
        return f"1:1: syntax error: {err}"
    if exc is None:
        return None
    first = (
        str(exc.message).strip().splitlines()[0] if str(exc.message).strip() else "invalid syntax"
    )
    return f"{exc.editor_line}:{exc.editor_column}: syntax error: {first}"


def _sites(findings: list[Finding], spans: dict[int, tuple[int, int]]) -> list[Site]:
    sites = [
        Site(
            line=spans[id(f.anchor)][0],
            column=spans[id(f.anchor)][1],
            rule=f.rule,
            action=f.action,
            reason=f.reason,
        )
        for f in findings
    ]
    return sorted(sites, key=lambda s: (s.line, s.column, s.rule))


def migrate_source(source: str, *, generate: bool = True, precheck: bool = True) -> SourceResult:
    """`generate=False` (for --check without --diff) decides everything but skips code generation.

    `precheck=False` parses even files the substring pre-check rules out (tests use it to
    show the pre-check never skips a real site).
    """
    if file_is_skipped(source):
        return SourceResult("skipped", message="# jp-migrate: skip")
    if precheck and not may_contain_outcome(source):
        # Nothing to rewrite; the C parser still names a syntax error, at a fraction of libcst's cost.
        error = syntax_error(source)
        return SourceResult("error", message=error) if error else SourceResult("unchanged")
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return SourceResult("error", message=syntax_error(source, exc))
    found = scan(module)
    names = Names(module, source)
    keyed, claimed, variables = keyed_findings(found, names.is_dict_call)
    findings = (
        keyed
        + literal_findings(found, names.is_dict_call, claimed, names)
        + call_findings(found, names.is_dict_call)
    )
    findings += string_findings(found, names)
    locator = Locator(source, module, found)
    skipped = skip_lines(source)
    findings = _not_skipped(findings, locator, skipped)
    outcomes = {
        id(f.outcome) for f in findings if f.action == "rewritten" and f.outcome is not None
    }
    findings += _not_skipped(read_findings(found, outcomes, variables), locator, skipped)
    if not findings:
        return SourceResult("unchanged")
    spans = {id(f.anchor): locator.span(f.anchor) for f in findings}
    sites = _sites(findings, {k: (v.line, v.column) for k, v in spans.items()})
    if any(f.action == "unhandled" for f in findings):
        return SourceResult("unchanged", [s for s in sites if s.action == "unhandled"])
    if not generate:
        return SourceResult("migrated", sites)
    output = apply(module, findings).code
    return SourceResult(
        "migrated" if output != source else "unchanged", sites, output if output != source else None
    )


def _not_skipped(
    findings: list[Finding], locator: Locator, skipped: frozenset[int]
) -> list[Finding]:
    if not skipped or not findings:
        return findings
    locator.prepare([f.anchor for f in findings])
    return [f for f in findings if not _covers(locator, f, skipped)]


def _covers(locator: Locator, finding: Finding, skipped: frozenset[int]) -> bool:
    span = locator.span(finding.anchor)
    return any(line in skipped for line in range(span.line, span.end_line + 1))
