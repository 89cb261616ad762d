"""Small text helpers shared by the human-readable renderers."""

from __future__ import annotations

from jp_migrate.contract.report import Report, StoreFile, ToolFile, Totals, VerifyCase


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def headline(report: Report, totals: Totals) -> str:
    """One sentence saying what the run found, in the dry-run or the real-run voice."""
    changed = "would change" if report.dry_run else "changed"
    parts = []
    if totals.files or not totals.cases:  # a verify run alone has no files to speak of
        parts.append(
            f"{plural(totals.files, 'file')} checked"
            if report.dry_run
            else f"{plural(totals.files, 'file')}"
        )
        parts.append(f"{totals.changed} {changed}")
    if totals.errors:
        parts.append(plural(totals.errors, "error"))
    if totals.unhandled_sites:
        parts.append(plural(totals.unhandled_sites, "unhandled site"))
    if totals.problems:
        parts.append(f"{plural(totals.problems, 'file')} with problems")
    if totals.cases:
        parts.append(
            f"{plural(totals.cases, 'verify case')}, {plural(totals.mismatches, 'mismatch', 'mismatches')}"
        )
    return ", ".join(parts)


def status_label(report: Report, f: StoreFile | ToolFile) -> str:
    if f.status == "migrated" and report.dry_run:
        return "would migrate"
    return f.status


def case_label(c: VerifyCase) -> str:
    """Where the case came from (`cases.jsonl:4 (greeting)`) when known, else `case 3`."""
    origin = c.inputs.get("case")
    return origin if isinstance(origin, str) and origin else f"case {c.index}"


def site_counts(f: ToolFile) -> tuple[int, int]:
    rewritten = sum(s.action == "rewritten" for s in f.sites)
    return rewritten, len(f.sites) - rewritten


TOTAL_ROWS: tuple[tuple[str, str], ...] = (
    ("files", "Files"),
    ("changed", "Changed"),
    ("unchanged", "Unchanged"),
    ("errors", "Errors"),
    ("skipped", "Skipped"),
    ("events_migrated", "Events migrated"),
    ("repairs", "Repairs"),
    ("unhandled_sites", "Unhandled sites"),
    ("cases", "Verify cases"),
    ("mismatches", "Mismatches"),
    ("problems", "Store problems"),
)
