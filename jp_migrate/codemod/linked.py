"""Tools that import each other (form 6): `from _replies import ok` and `import semver_bump`.

The files given are migrated together (`api.migrate_tools`): a file's functions
that return a rewritten Outcome are its exports; a file that imports one and
reads legacy keys of what it returns (`bump = semver_bump.run(…); bump["type"]`)
would break once the export is rewritten. Such a read is reported in the
importer, and the Outcomes that reach that export are left as they are in the
exporter, each naming the other (as `blocking` does inside one file).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import libcst as cst

from jp_migrate.codemod.reads import Holders, read_findings
from jp_migrate.codemod.scan import Scan, Scope
from jp_migrate.codemod.sites import Finding

Variables = Mapping[int, tuple[Scope, str]]


def _helpers(found: Scan, finding: Finding, variables: Variables) -> set[str]:
    outcome = id(finding.outcome)
    names = [name for key, (_scope, name) in variables.items() if key == outcome]
    return Holders(found, {outcome}, names).helpers


def _module_functions(found: Scan) -> set[str]:
    return {
        statement.name.value
        for body, scope in found.blocks
        if isinstance(scope, cst.Module)
        for statement in body
        if isinstance(statement, cst.FunctionDef)
    }


def blocked(
    findings: list[Finding], found: Scan, variables: Variables, readers: Mapping[str, list[str]]
) -> list[Finding]:
    """Rewrites whose Outcome reaches a function another file reads the Outcome of: left."""
    if not readers:
        return findings
    out: list[Finding] = []
    for finding in findings:
        if finding.action != "rewritten" or finding.outcome is None:
            out.append(finding)
            continue
        hit = sorted(_helpers(found, finding, variables) & readers.keys())
        if not hit:
            out.append(finding)
            continue
        spots = sorted({w for name in hit for w in readers[name]})
        where = ", ".join(spots[:3]) + (f" and {len(spots) - 3} more" if len(spots) > 3 else "")
        reason = (
            f"{finding.reason}: not rewritten, {where} reads the legacy keys of what "
            f"`{hit[0]}()` returns; change that code to read the envelope, then run again"
        )
        out.append(
            dataclasses.replace(
                finding, action="unhandled", reason=reason, rewrites=(), outcome=None
            )
        )
    return out


def exports(findings: list[Finding], found: Scan, variables: Variables) -> frozenset[str]:
    """The module-level functions that may return an Outcome this run rewrites."""
    outcomes = {id(f.outcome) for f in findings if f.action == "rewritten" and f.outcome}
    if not outcomes:
        return frozenset()
    names = [name for key, (_scope, name) in variables.items() if key in outcomes]
    return frozenset(Holders(found, outcomes, names).helpers & _module_functions(found))


def foreign_reads(
    found: Scan,
    owned: set[int],
    sites: frozenset[int],
    helpers: Mapping[str, str],
    reported: set[int],
) -> dict[str, list[Finding]]:
    """For each name bound to another file's export, the reads of what it returns."""
    if not helpers:
        return {}
    # A `"type"` compared with a tag cannot be traced to a value: it may read any of them.
    untraced = [
        r for r in read_findings(found, set(), {}, owned, sites) if id(r.anchor) not in reported
    ]
    skip = reported | {id(r.anchor) for r in untraced}
    out: dict[str, list[Finding]] = {}
    for name, label in helpers.items():
        reads = read_findings(found, set(), {}, owned, sites, frozenset({name}))
        out[name] = list(untraced)
        for read in reads:
            if read.action != "unhandled" or id(read.anchor) in skip:
                continue
            reason = f"{read.reason} (what `{label}()` returns: the codemod rewrites it)"
            out[name].append(dataclasses.replace(read, reason=reason))
    return {name: reads for name, reads in out.items() if reads}
