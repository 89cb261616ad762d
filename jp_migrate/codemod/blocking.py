"""Which refused sites keep which rewrites from being made (ruff's safe fixes, for Outcomes).

A refused Outcome site (a dynamic `type`, a question the mapping cannot follow)
does not see what another site builds: it is reported and the rest of the file
is rewritten. A read of legacy keys (`r["content"]`) does see the Outcome it
reads: the Outcomes it can reach are left as they are, and both sites say which
blocks which. A read that cannot be traced to one Outcome (a `"type"` compared
with a tag) may see any of them, so it blocks every rewrite in the file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from jp_migrate.codemod.sites import Finding

ReadsOf = Callable[[Sequence[Finding]], list[Finding]]  # reads that see these rewrites' Outcomes
Where = Callable[[Finding], str]  # `line:col` of a finding's anchor


def settle(findings: list[Finding], reads_of: ReadsOf, where: Where) -> list[Finding]:
    """`findings` (Outcome sites) and the read sites, each rewrite kept only if no read sees it."""
    rewritten = [f for f in findings if f.action == "rewritten" and f.outcome is not None]
    reads = [r for r in reads_of(rewritten) if r.action == "unhandled"]
    if not reads or not rewritten:
        return findings + reads
    untraced = reads_of([])
    traced = {id(r.anchor) for r in untraced}
    blockers: dict[int, list[Finding]] = {}
    for finding in rewritten:
        seen = untraced + [r for r in reads_of([finding]) if id(r.anchor) not in traced]
        if seen:
            blockers[id(finding)] = seen
    kept = [f for f in rewritten if id(f) not in blockers]
    left = [r for r in reads_of(kept) if id(r.anchor) not in traced]
    if left:  # seen only by the rewrites together: none of them is independent
        for finding in kept:
            blockers[id(finding)] = left
    blocked_by: dict[int, list[Finding]] = {}  # read anchor → the rewrites it blocks
    out: list[Finding] = []
    for finding in findings:
        seen = blockers.get(id(finding))
        if seen is None:
            out.append(finding)
            continue
        for read in seen:
            blocked_by.setdefault(id(read.anchor), []).append(finding)
        sites = ", ".join(sorted({where(r) for r in seen}))
        reason = (
            f"{finding.reason}: not rewritten, its legacy keys are read at {sites}; "
            "change that code to read the envelope (or mark it `# jp-migrate: skip`)"
        )
        out.append(
            dataclasses.replace(
                finding, action="unhandled", reason=reason, rewrites=(), outcome=None
            )
        )
    reported: set[int] = set()
    for read in untraced + reads:
        if id(read.anchor) in reported:
            continue
        reported.add(id(read.anchor))
        blocked = blocked_by.get(id(read.anchor), [])
        if blocked:
            sites = ", ".join(sorted({where(f) for f in blocked}))
            read = dataclasses.replace(
                read, reason=f"{read.reason} (keeps {sites} from being rewritten)"
            )
        out.append(read)
    return out
