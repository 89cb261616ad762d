"""How the bridge's results read on a terminal (rich; plain when NO_COLOR or not a TTY)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rich.markup import escape

from jp_migrate.contract.normalized import NormalizedOutcome
from jp_migrate.contract.report import Report, VerifyCase
from jp_migrate.visible import visible

_VERDICT_STYLE = {
    "match": "green",
    "expected": "cyan",
    "mismatch": "bold red",
    "error": "bold yellow",
}


def _console(*, soft_wrap: bool = True) -> Any:
    """Lines are not folded (a verify line is copied as it is); a panel's text must be, or it is cut."""
    from rich.console import Console

    return Console(highlight=False, soft_wrap=soft_wrap)


def outcome_panel(name: str, outcome: NormalizedOutcome, answers: Mapping[str, Any]) -> None:
    from rich.panel import Panel
    from rich.text import Text

    state = "error" if outcome.is_error else outcome.status
    title = f"{name} · {outcome.protocol} · {state}"
    body = Text(visible(outcome.text))
    details: list[str] = []
    if outcome.is_error:
        details.append(f"transient: {str(outcome.transient).lower()}")
        details += [f"trace: {line}" for line in outcome.trace]
    for question in outcome.questions:
        details.append(f"question {question.id}: {question.text} {json.dumps(question.schema_)}")
    if answers:
        details.append(f"answers: {json.dumps(dict(answers), ensure_ascii=False)}")
    if outcome.exit_code not in (0, None):
        details.append(f"exit code: {outcome.exit_code}")
    if outcome.stderr.strip():
        details.append(f"stderr: {outcome.stderr.strip()}")
    if details:
        body.append("\n\n" + visible("\n".join(details)), style="dim")
    style = "red" if outcome.is_error else "green"
    _console(soft_wrap=False).print(
        Panel(body, title=title, title_align="left", border_style=style)
    )


def verify_report(results: Sequence[VerifyCase]) -> Report:
    from jp_migrate.report import compute_totals

    mismatched = any(c.verdict == "mismatch" for c in results)
    failed = any(c.verdict == "error" for c in results)
    # As every command (and `check`): an error outranks a difference.
    report = Report(
        command="verify", exit_code=2 if failed else 1 if mismatched else 0, verify=list(results)
    )
    report.totals = compute_totals(report)
    return report


def print_verify(results: Sequence[VerifyCase], *, quiet: bool = False) -> None:
    """A line per case (with --quiet only the mismatches and errors), then the counts."""
    console = _console()
    for case in results:
        if quiet and case.verdict in ("match", "expected"):
            continue
        label = case.inputs.get("case") or f"case {case.index}"
        verdict = case.verdict
        names = f" ({', '.join(case.differences)})" if case.differences else ""
        console.print(
            f"[{_VERDICT_STYLE[verdict]}]{verdict:<8}[/] {escape(visible(f'{label}{names}'))}"
        )
        if verdict in ("mismatch", "error"):
            shown = {k: v for k, v in case.inputs.items() if k != "case" and v}
            console.print(f"         inputs: {json.dumps(shown, ensure_ascii=False)}", markup=False)
            for side, shown_as in (("control", "before"), ("candidate", "after")):
                observed = getattr(case, side)
                if observed is not None:
                    text = visible(json.dumps(observed.get("text"), ensure_ascii=False))
                    flags = f"{observed.get('status')}, is_error={str(observed.get('is_error')).lower()}"
                    console.print(f"         {shown_as}: [{flags}] {text}", markup=False)
        if case.message and verdict != "match":
            console.print(f"         {visible(case.message)}", markup=False)
    if quiet:
        return
    counts = {v: sum(c.verdict == v for c in results) for v in _VERDICT_STYLE}
    summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "no cases"
    console.print(f"{len(results)} case{'s' if len(results) != 1 else ''}: {summary}")
