"""Totals and the canonical (sorted) form of a report: every renderer starts from `normalize`."""

from __future__ import annotations

from jp_migrate.contract.report import Report, StoreFile, ToolFile, Totals, VerifyCase


def has_problems(f: StoreFile | ToolFile) -> bool:
    return isinstance(f, StoreFile) and bool(f.problems)


def compute_totals(report: Report) -> Totals:
    """Count the report's sections; the one definition every format shares.

    `files` counts store and tool files; `changed` those migrated (or, in a dry
    run, that would be); `errors` counts files in error and verify cases that
    could not run; `mismatches` only verify cases whose verdict is `mismatch`;
    `problems` the store files a `--check-integrity` run found wrong (not in `errors`).
    """
    files = [*(report.store or []), *(report.tools or [])]
    cases = report.verify or []
    return Totals(
        files=len(files),
        changed=sum(f.status == "migrated" for f in files),
        unchanged=sum(f.status == "unchanged" for f in files),
        errors=sum(f.status == "error" and not has_problems(f) for f in files)
        + sum(c.verdict == "error" for c in cases),
        skipped=sum(f.status == "skipped" for f in files),
        events_migrated=sum(f.events_migrated for f in report.store or []),
        repairs=sum(len(f.repairs) for f in report.store or []),
        unhandled_sites=sum(s.action == "unhandled" for f in report.tools or [] for s in f.sites),
        cases=len(cases),
        mismatches=sum(c.verdict == "mismatch" for c in cases),
        problems=sum(has_problems(f) for f in files),
    )


def _store(f: StoreFile) -> StoreFile:
    return f.model_copy(
        update={
            "repairs": sorted(f.repairs, key=lambda r: (r.event_index, r.field, r.event_id)),
            "rules": sorted(set(f.rules)),
        }
    )


def _tool(f: ToolFile) -> ToolFile:
    return f.model_copy(
        update={"sites": sorted(f.sites, key=lambda s: (s.line, s.column, s.rule, s.action))}
    )


def _case(c: VerifyCase) -> VerifyCase:
    return c.model_copy(update={"differences": sorted(set(c.differences))})


def normalize(report: Report) -> Report:
    """The report in its canonical order, with totals recomputed (SPEC §4: deterministic output).

    Sorting here, not in each command, means two runs that found the same
    things render byte-identical reports whatever order the work finished in.
    """
    store = (
        None
        if report.store is None
        else sorted(map(_store, report.store), key=lambda f: (f.path, f.conversation))
    )
    tools = None if report.tools is None else sorted(map(_tool, report.tools), key=lambda f: f.path)
    verify = (
        None if report.verify is None else sorted(map(_case, report.verify), key=lambda c: c.index)
    )
    timings = None if report.timings is None else dict(sorted(report.timings.items()))
    ordered = report.model_copy(
        update={"store": store, "tools": tools, "verify": verify, "timings": timings}
    )
    return ordered.model_copy(update={"totals": compute_totals(ordered)})


def is_failure(report: Report, f: StoreFile | ToolFile) -> bool:
    """Whether a file fails a CI gate: it would change (dry run), has an unhandled site,
    or `--check-integrity` found problems in it."""
    if has_problems(f):
        return True
    unhandled = isinstance(f, ToolFile) and any(s.action == "unhandled" for s in f.sites)
    return f.status not in ("error", "skipped") and (
        (report.dry_run and f.status == "migrated") or unhandled
    )


def notes(f: StoreFile | ToolFile) -> str:
    """The file's message, then any verify problems and warnings, as one line."""
    extra = (
        [*f.problems, *(f"warning: {w}" for w in f.warnings)] if isinstance(f, StoreFile) else []
    )
    return "; ".join(x for x in (f.message, *extra) if x)
