"""One tool source in, its migrated text and sites out. Pure: no files, no printing.

precheck (substring) → parse → scan (one pass) → transforms decide → positions
→ `# jp-migrate: skip` → reads that see a rewrite block it (`blocking`) → apply
the rewrites left and regenerate.
"""

from __future__ import annotations

import ast
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import libcst as cst

from jp_migrate.codemod import linked
from jp_migrate.codemod.apply import apply
from jp_migrate.codemod.blocking import settle
from jp_migrate.codemod.constants import Constants
from jp_migrate.codemod.constkeys import constant_key_findings
from jp_migrate.codemod.dataclassed import outcome_dataclasses
from jp_migrate.codemod.held import Questions
from jp_migrate.codemod.hints import with_advice
from jp_migrate.codemod.keyed import Keyed, keyed_findings
from jp_migrate.codemod.literal import call_findings, literal_findings
from jp_migrate.codemod.mcpserver import in_mcp_server, is_mcp_server
from jp_migrate.codemod.models import Models
from jp_migrate.codemod.names import Metadata, Names
from jp_migrate.codemod.positions import Locator
from jp_migrate.codemod.precheck import file_is_skipped, may_contain_outcome, skip_lines
from jp_migrate.codemod.pydantic_models import Planned, pydantic_findings, together
from jp_migrate.codemod.reads import read_findings
from jp_migrate.codemod.scan import Scan, scan
from jp_migrate.codemod.sites import Finding
from jp_migrate.codemod.strings import string_findings
from jp_migrate.codemod.typeddicts import keyword_builders, outcome_typed_dicts
from jp_migrate.contract.report import FileStatus, Site


@dataclass(frozen=True)
class SourceResult:
    status: FileStatus  # migrated (would be, when not generated), unchanged, error, skipped
    sites: list[Site] = field(default_factory=list)
    output: str | None = None  # the new text, when asked for and changed
    message: str = ""
    line: int | None = None  # where a syntax error is (1-based), when it is one
    column: int | None = None
    # With a `Link`: this file's functions returning a rewritten Outcome, and for each name
    # bound to another file's such function, where this file reads what it returns.
    exports: frozenset[str] = frozenset()
    foreign_reads: dict[str, list[str]] = field(default_factory=dict)

    @property
    def unhandled(self) -> bool:
        return any(s.action == "unhandled" for s in self.sites)


@dataclass(frozen=True)
class SyntaxProblem:
    """Where a source does not parse, and why; reads `line:col: syntax error: reason`."""

    line: int
    column: int  # 1-based; 0 when unknown
    reason: str

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: syntax error: {self.reason}"

    def result(self) -> SourceResult:
        return SourceResult("error", message=str(self), line=self.line, column=self.column)


def syntax_error(source: str, exc: cst.ParserSyntaxError | None = None) -> SyntaxProblem | None:
    """Where and why `source` does not parse, in CPython's words when it agrees it is broken."""
    try:
        ast.parse(source)
    except SyntaxError as err:
        return _described(err)
    if exc is None:
        return None
    first = (
        str(exc.message).strip().splitlines()[0] if str(exc.message).strip() else "invalid syntax"
    )
    return SyntaxProblem(exc.editor_line, exc.editor_column, first)


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


DEEP_STACK = 512 * 1024 * 1024  # address space reserved for a deep file's thread, not memory used
DEEP_RECURSION = 200_000


@dataclass(frozen=True)
class Link:
    """What the files around this one say about it (`linked`): tools importing each other."""

    # Names bound here to another file's functions that return a rewritten Outcome
    # (`run` of `from tool import run`, `tool.run` of `import tool`) → how to name them.
    helpers: dict[str, str] = field(default_factory=dict)
    # This file's functions whose Outcomes another file reads → where (`other.py:3:5`).
    blocked: dict[str, list[str]] = field(default_factory=dict)
    # Every file this one imports a helper from rewrites all its Outcome sites: reads of
    # what the helpers return may be rewritten too (a refused one would still be legacy).
    clean: bool = True


def migrate_source(
    source: str, *, generate: bool = True, precheck: bool = True, link: Link | None = None
) -> SourceResult:
    """`generate=False` (for --check without --diff) decides everything but skips code generation.

    `precheck=False` parses even files the substring pre-check rules out (tests use it to
    show the pre-check never skips a real site).

    libcst walks a tree recursively, a few frames per level: a long `+` chain or a
    parenthesised run of hundreds of implicit string concatenations, which Python
    itself compiles, goes past the default recursion limit. Such a file is done
    again on a thread with a deep stack.
    """
    if "\0" in source:  # libcst parses it, Python refuses to compile it
        before = source[: source.index("\0")]
        line, column = before.count("\n") + 1, len(before) - before.rfind("\n")
        return SyntaxProblem(line, column, "a null byte").result()
    try:
        return _migrate_source(source, generate, precheck, link)
    except RecursionError:
        pass
    try:
        return _on_deep_stack(lambda: _migrate_source(source, generate, precheck, link))
    except RecursionError:
        return SourceResult(
            "error", message="nested too deeply for the codemod (libcst): left untouched"
        )


def _on_deep_stack(work: Callable[[], SourceResult]) -> SourceResult:
    """`work()` on a thread with a large stack and recursion limit; its exception is re-raised here."""
    outcome: list[SourceResult | BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
            outcome.append(exc)

    limit, stack = sys.getrecursionlimit(), threading.stack_size()
    try:
        sys.setrecursionlimit(max(limit, DEEP_RECURSION))
        threading.stack_size(DEEP_STACK)
        thread = threading.Thread(target=run, name="jp-migrate-deep")
        thread.start()
    finally:
        threading.stack_size(stack)
    thread.join()
    sys.setrecursionlimit(limit)
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _fixed_reads(
    findings: list[Finding],
    found: Scan,
    keyed: Keyed,
    outcome_nodes: frozenset[int],
    link: Link | None,
) -> list[Finding] | None:
    """Every read of a legacy key in the file, rewritten where `readback` maps it.

    Only when every Outcome site of the file (and of the files its helpers come
    from) is rewritten: a value the reads see is then always an envelope. None
    when that does not hold (`settle` decides then); `[]`: no read at all.
    """
    if link is not None and not link.clean:
        return None
    if any(f.action == "unhandled" for f in findings):
        return None
    outcomes = {id(f.outcome) for f in findings if f.outcome is not None}
    helpers = frozenset(link.helpers) if link is not None else frozenset()
    if not outcomes and not helpers:
        return None
    variables = {k: v for k, v in keyed.variables.items() if k in outcomes}
    return read_findings(
        found, outcomes, variables, keyed.owned, outcome_nodes, helpers, rewrite=True
    )


def _migrate_source(
    source: str, generate: bool, precheck: bool, link: Link | None = None
) -> SourceResult:
    if file_is_skipped(source):
        return SourceResult("skipped", message="# jp-migrate: skip")
    if precheck and not (link and link.helpers) and not may_contain_outcome(source):
        # Nothing to rewrite; the C parser still names a syntax error, at a fraction of libcst's cost.
        error = syntax_error(source)
        return error.result() if error else SourceResult("unchanged")
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        problem = syntax_error(source, exc)
        assert problem is not None  # with libcst's error given, there is always one
        return problem.result()
    found = scan(module)
    metadata = Metadata(module)
    classes = outcome_typed_dicts(found)
    builders = keyword_builders(found, metadata.qualified)
    names = Names(metadata, source, frozenset(classes) | frozenset(builders))
    keyed = keyed_findings(found, names.is_dict_call)
    questions = Questions(module, found, names.is_dict_call)
    findings = (
        keyed.findings
        + literal_findings(
            found, names.is_dict_call, keyed.claimed, names, questions, Constants(module, names)
        )
        + call_findings(
            found,
            names.is_dict_call,
            questions,
            names.shape,
            classes,
            outcome_dataclasses(found, module),
            Models(module),
        )
    )
    planned = Planned([], {})
    if "BaseModel" in source:  # scope analysis only for a file that may define a model
        planned = pydantic_findings(module, names.is_dict_call, mcp=is_mcp_server(found))
        findings = [f for f in findings if id(f.anchor) not in planned.anchors]
        findings += planned.findings
    taken = {id(f.anchor) for f in findings}  # a key a name holds may be resolved already
    findings += string_findings(found, names) + [
        f for f in constant_key_findings(found) if id(f.anchor) not in taken
    ]
    if findings and is_mcp_server(found):
        dumpers = frozenset(name for name, dumps in builders.items() if dumps)
        findings = in_mcp_server(findings, found, names, module, dumpers)
    locator = Locator(source, module, found)
    skipped = skip_lines(source)
    findings = _not_skipped(findings, locator, skipped)
    reported = {id(f.anchor) for f in findings}
    outcome_nodes = frozenset(id(f.outcome) for f in findings if f.outcome is not None)

    def reads_of(rewrites: Sequence[Finding]) -> list[Finding]:
        outcomes = {id(f.outcome) for f in rewrites if f.outcome is not None}
        variables = {k: v for k, v in keyed.variables.items() if k in outcomes}
        reads = read_findings(found, outcomes, variables, keyed.owned, outcome_nodes)
        return _not_skipped([f for f in reads if id(f.anchor) not in reported], locator, skipped)

    def where(finding: Finding) -> str:
        span = locator.span(finding.anchor)
        return f"{span.line}:{span.column}"

    fixed = _fixed_reads(findings, found, keyed, outcome_nodes, link)
    if fixed is not None:
        fixed = _not_skipped([f for f in fixed if id(f.anchor) not in reported], locator, skipped)
    reads_fixed = fixed is not None and all(f.action == "rewritten" for f in fixed)
    if fixed is not None and reads_fixed:
        findings += fixed  # nothing left to block: reads and Outcomes migrate together
    else:
        findings = settle(findings, reads_of, where)
    exports: frozenset[str] = frozenset()
    foreign: dict[str, list[str]] = {}
    if link is not None:
        owned, variables = keyed.owned, keyed.variables
        findings = linked.blocked(findings, found, variables, link.blocked)
        exports = linked.exports(findings, found, variables)
        helpers = {} if reads_fixed else link.helpers
        got = linked.foreign_reads(found, owned, outcome_nodes, helpers, reported)
        unique: dict[int, Finding] = {}
        for name, reads in got.items():
            reads = _not_skipped(reads, locator, skipped)
            foreign[name] = [where(f) for f in reads]
            unique.update((id(f.anchor), f) for f in reads if id(f.anchor) not in unique)
        findings += unique.values()
    findings = [with_advice(f) for f in together(findings, planned)]
    if not findings:
        return SourceResult("unchanged", exports=exports, foreign_reads=foreign)
    spans = {id(f.anchor): locator.span(f.anchor) for f in findings}
    sites = _sites(findings, {k: (v.line, v.column) for k, v in spans.items()})
    if not any(f.action == "rewritten" for f in findings):
        return SourceResult("unchanged", sites, exports=exports, foreign_reads=foreign)
    if not generate:
        return SourceResult("migrated", sites, exports=exports, foreign_reads=foreign)
    output = apply(module, findings).code
    if output == source:
        return SourceResult("unchanged", sites, exports=exports, foreign_reads=foreign)
    broken = compile_error(output)
    # A case the transforms got wrong is never written. Only this Python can judge, so a
    # file it cannot compile as it is (newer syntax, `return` at module level) is not judged.
    if broken is not None and compile_error(source) is None:
        message = f"the rewrite would not compile ({broken}): left untouched; please report it"
        return SourceResult("error", sites, message=message)
    return SourceResult("migrated", sites, output, exports=exports, foreign_reads=foreign)


def compile_error(source: str) -> SyntaxProblem | None:
    """Where and why CPython refuses to compile `source` (beyond parsing)."""
    try:
        compile(source, "<tool>", "exec", dont_inherit=True)
    except SyntaxError as err:
        return _described(err)
    return None


def _described(err: SyntaxError) -> SyntaxProblem:
    return SyntaxProblem(err.lineno or 0, err.offset or 0, err.msg)


def _not_skipped(
    findings: list[Finding], locator: Locator, skipped: frozenset[int]
) -> list[Finding]:
    if not skipped or not findings:
        return findings
    locator.prepare([node for f in findings for node in _touched(f)])
    return [f for f in findings if not _covers(locator, f, skipped)]


def _touched(finding: Finding) -> list[cst.CSTNode]:
    """The site's anchor, the node that builds the Outcome and every node its rewrite
    replaces (a key-by-key build spans lines, from `out = {}` on)."""
    nodes = [finding.anchor, *(node for node, _ in finding.rewrites)]
    return nodes if finding.outcome is None else [*nodes, finding.outcome]


def _covers(locator: Locator, finding: Finding, skipped: frozenset[int]) -> bool:
    """A skip marker on any line of the site, or of a statement its rewrite changes."""
    for node in _touched(finding):
        span = locator.span(node)
        if any(line in skipped for line in range(span.line, span.end_line + 1)):
            return True
    return False
