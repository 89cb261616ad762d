"""Before/after verification, Scientist-style (SPEC §2 expected differences, §5 comparison).

Public API (the bridge/verify interface other capabilities call):

    before = Target.from_template("python3 old.py '{{tool}}'", "my_tool", root)   # a command template
    after = Target.from_workspace(Path("migrated-ws"), "my_tool")                # or (workspace, tool name)
    results = verify_cases(before, after, load_cases(Path("cases.jsonl")), jobs=2, timeout=30)

    # several tools in one run (as `check` does): each case with its own pair of targets
    results = verify_trials([Trial(before, after, case, index) for ...], jobs=2, timeout=30)

Every case runs through the control (`before`, read by the legacy host) and the
candidate (`after`, read by the RFD 058 host); the two normalized outcomes are
compared with `jp_migrate.convert.compare.compare` and reported as one
`VerifyCase`: match, expected (naming SPEC §2's difference), mismatch (naming
the fields), or error (the run could not happen), with the inputs and both
observations.
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from jp_migrate.bridge import edge
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.mcp_client import SessionPool
from jp_migrate.bridge.presentation import EXPLAINED, presentation_differences
from jp_migrate.bridge.protocol import HostMode
from jp_migrate.bridge.questions import AnswerSource
from jp_migrate.bridge.scratch import copy_workspace
from jp_migrate.bridge.target import Inputs, Target, run_target
from jp_migrate.contract.jsontext import load_json
from jp_migrate.contract.normalized import NormalizedOutcome
from jp_migrate.contract.parse import dump, parse_normalized
from jp_migrate.contract.report import VerifyCase
from jp_migrate.convert.compare import (
    CONTENT_ARRAY_PARSED,
    EXPECTED_DIFFERENCES,
    Comparison,
    compare,
    compare_asked,
    with_asked,
)
from jp_migrate.convert.store_rules import decode_leaves
from jp_migrate.errors import ContractError, JpMigrateError
from jp_migrate.store.discover import Conversation, Rejected, discover
from jp_migrate.store.load import read_events

__all__ = [
    "Case",
    "Target",
    "Trial",
    "cases_from_store",
    "load_cases",
    "scratch_roots",
    "scratch_workspace",
    "verify_case",
    "verify_cases",
    "verify_trials",
]

_CASE_KEYS = ("arguments", "answers", "options")


@dataclass(frozen=True)
class Case:
    """One call to replay: a JSONL line `{"arguments": {…}, "answers": {…}, "options": {…}}`."""

    arguments: Mapping[str, Any] = field(default_factory=dict)
    answers: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    origin: str = ""  # "cases.jsonl:3", or the stored call it came from
    tool: str | None = None  # a shared cases file: the tool this line is for (None: every tool)

    @property
    def inputs(self) -> Inputs:
        return Inputs(self.arguments, self.answers, self.options)


def _case(obj: Any, origin: str) -> Case:
    if not isinstance(obj, dict):
        raise ContractError("a case must be a JSON object", source=origin)
    for key in _CASE_KEYS:
        if key in obj and not isinstance(obj[key], dict):
            raise ContractError(f"{key} must be a JSON object", field=key, source=origin)
    if "tool" in obj and not isinstance(obj["tool"], str):
        raise ContractError("tool must be a string", field="tool", source=origin)
    unknown = sorted(set(obj) - {*_CASE_KEYS, "name", "tool"})
    if unknown:
        raise ContractError(
            f"unknown keys {', '.join(unknown)} (expected {', '.join(_CASE_KEYS)})", source=origin
        )
    label = f"{origin} ({obj['name']})" if isinstance(obj.get("name"), str) else origin
    return Case(
        obj.get("arguments", {}),
        obj.get("answers", {}),
        obj.get("options", {}),
        label,
        obj.get("tool"),
    )


def load_cases(path: Path, *, tool: str | None = None) -> list[Case]:
    """Cases from a JSONL file (blank lines skipped); a bad line is a ContractError naming `file:line`.

    A line may say which tool it is for (`"tool": "name"`), so one file can
    hold the cases of several tools; with `tool` given, only its lines (and
    lines naming no tool) are kept.
    """
    from jp_migrate.files.edit import read_bounded

    try:  # a FIFO or a device (/dev/zero) is refused, never waited on nor read without end
        text = read_bounded(path).decode("utf-8")
    except OSError as exc:
        raise ContractError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ContractError(f"not valid UTF-8 (byte {exc.start})", source=str(path)) from None
    cases: list[Case] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        origin = f"{path}:{number}"
        obj = load_json(line, source=origin)
        case = _case(obj, origin)
        if tool is None or case.tool in (None, tool):
            cases.append(case)
    return cases


# ── cases from a conversation store ───────────────────────────────────────────


def _stored_answers(events: list[Any]) -> dict[str, dict[str, Any]]:
    """Each call's inquiry answers (`inquiry_response` ids are `<call id>.<question id>`)."""
    answers: dict[str, dict[str, Any]] = {}
    for event in events:
        if isinstance(event, dict) and event.get("type") == "inquiry_response":
            call_id, _, question = str(event.get("id", "")).rpartition(".")
            if call_id and question:
                answers.setdefault(call_id, {})[question] = event.get("answer")
    return answers


def _stored_cases(conversation: Conversation, tool: str) -> list[Case]:
    """A case per `tool_call_request` for `tool` in one conversation (none without events)."""
    if not os.path.isfile(conversation.events):
        return []  # a conversation of the messages era, or one JP never wrote: no calls to replay
    events = read_events(conversation.events, source=conversation.shown).events
    answers = _stored_answers(events)
    cases: list[Case] = []
    for event in events:
        if (
            not isinstance(event, dict)
            or event.get("type") != "tool_call_request"
            or event.get("name") != tool
        ):
            continue
        arguments = decode_leaves(event.get("arguments") or {})
        call_id = str(event.get("id", ""))
        origin = f"{conversation.name}#{call_id}"
        cases.append(_case({"arguments": arguments, "answers": answers.get(call_id, {})}, origin))
    return cases


def cases_from_store(store: Path, tool: str) -> list[Case]:
    """A case per stored `tool_call_request` for `tool`, with its stored inquiry answers (SPEC §3).

    The store is read as `jp-migrate conversations` reads it (store.discover): a
    workspace, a storage root or one conversation, and a workspace's user-local
    storage (JP's RFD 031) too; a call stored in both is replayed once.
    """
    cases: dict[str, Case] = {}
    for found in discover([store]):
        if isinstance(found, Rejected):
            if found.status == "error":
                raise BridgeError(found.message, source=found.conversation.shown)
            continue  # a symlink to a conversation of the same store: found by its own name
        for case in _stored_cases(found, tool):
            cases.setdefault(case.origin, case)
    return list(cases.values())


@contextmanager
def scratch_workspace(workspace: Path) -> Iterator[Path]:
    """A throw-away copy of `workspace` (no conversation store, no VCS data): tools run
    there have side effects (files they write, `__pycache__`) in it, not in the user's tree."""
    with tempfile.TemporaryDirectory(prefix="jp-migrate-verify-") as tmp:
        copy = Path(tmp) / (workspace.name or "workspace")
        copy_workspace(workspace, copy)
        yield copy


@contextmanager
def scratch_roots(targets: Sequence[Target]) -> Iterator[list[Target]]:
    """Each target re-rooted in its own throw-away copy of its workspace (tools can have side effects)."""
    with tempfile.TemporaryDirectory(prefix="jp-migrate-verify-") as tmp:
        moved: list[Target] = []
        for index, target in enumerate(targets):
            copy = Path(tmp) / f"{index}-{target.root.name or 'root'}"
            copy_workspace(target.root, copy)
            moved.append(target.relocated(copy))
        yield moved


# ── running and comparing ─────────────────────────────────────────────────────


@dataclass(frozen=True)
class _Observation:
    rounds: list[NormalizedOutcome]  # every run, the last after every question was answered
    warnings: list[str]
    wire: dict[str, Any] | None = None  # an MCP tool's final result, as the server sent it

    @property
    def outcome(self) -> NormalizedOutcome:
        return self.rounds[-1]

    @property
    def first(self) -> NormalizedOutcome:
        return self.rounds[0]


async def _observe(
    target: Target,
    case: Case,
    mode: HostMode,
    timeout: float | None,
    sessions: SessionPool | None,
    read_as: Path | None = None,
) -> _Observation:
    """One side's runs; a path of its workspace (or scratch copy) in what the tool printed
    reads as `read_as` (the control's workspace), else as its own workspace."""
    source = AnswerSource(given=case.answers)
    resolution = await run_target(
        target, case.inputs, mode=mode, source=source, timeout=timeout, sessions=sessions
    )
    rounds = list(resolution.rounds)
    own = target.copied_from or target.root
    if target.copied_from is not None:
        rounds = [unrooted(r, target.root, own) for r in rounds]
    if read_as is not None and read_as != own:
        rounds = [unrooted(r, own, read_as) for r in rounds]
    return _Observation(rounds, resolution.warnings, resolution.wire)


def unrooted(outcome: NormalizedOutcome, copy: Path, workspace: Path) -> NormalizedOutcome:
    """`outcome` with the scratch copy's path written as the workspace's.

    A tool run in a copy names the copy in what it prints (an absolute path in
    a message, Python's traceback of a crash): the same behaviour as in the
    workspace, so it must compare equal, and read the same in every run's report.
    """
    spellings = sorted({str(copy), str(copy.resolve())}, key=len, reverse=True)

    def fix(value: Any) -> Any:
        if isinstance(value, str):
            for spelling in spellings:
                value = value.replace(spelling, str(workspace))
            return value
        if isinstance(value, list):
            return [fix(item) for item in value]
        if isinstance(value, dict):
            return {key: fix(item) for key, item in value.items()}
        return value

    return parse_normalized(fix(dump(outcome)))


def _explain(
    verdict: str,
    differences: Sequence[str],
    control: NormalizedOutcome,
    candidate: NormalizedOutcome,
) -> str:
    if verdict == "expected":
        return "; ".join(EXPECTED_DIFFERENCES.get(d) or EXPLAINED.get(d, d) for d in differences)
    if verdict != "mismatch":
        return ""
    parts = []
    for name in differences:
        if name == "content":
            from jp_migrate.convert.render import render

            parts.append(f"content: {render(control.content)!r} → {render(candidate.content)!r}")
        elif name == "questions":
            parts.append(
                f"questions: {[q.id for q in control.questions]} → {[q.id for q in candidate.questions]}"
            )
        else:
            parts.append(f"{name}: {getattr(control, name)!r} → {getattr(candidate, name)!r}")
    return "; ".join(parts)


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


async def verify_case(
    before: Target,
    after: Target,
    case: Case,
    index: int,
    *,
    timeout: float | None = None,
    sessions: SessionPool | None = None,
) -> VerifyCase:
    """One case through the control and the candidate. `sessions` keeps MCP servers for
    later cases; a server never serves both sides (its state would leak): each host has
    its own session."""
    inputs: dict[str, Any] = {key: dict(getattr(case, key)) for key in _CASE_KEYS}
    if case.origin:
        inputs["case"] = case.origin
    observed: dict[str, _Observation] = {}
    errors: list[str] = []
    sides: tuple[tuple[str, Target, HostMode], ...] = (
        ("control", before, "legacy"),
        ("candidate", after, "blocks"),
    )
    # Two workspaces (`--before-workspace`, `--after-workspace`): a path of the candidate's
    # reads as the control's, so the same behaviour compares equal.
    home = before.copied_from or before.root
    for side, target, mode in sides:
        try:
            observed[side] = await _observe(target, case, mode, timeout, sessions, home)
        except JpMigrateError as exc:
            errors.append(f"{'before' if side == 'control' else 'after'}: {exc}")
    control = observed.get("control")
    candidate = observed.get("candidate")
    warnings = [f"{side}: {w}" for side, seen in observed.items() for w in seen.warnings]
    if control is None or candidate is None:
        return VerifyCase(
            index=index,
            verdict="error",
            inputs=inputs,
            control=dump(control.outcome) if control else None,
            candidate=dump(candidate.outcome) if candidate else None,
            message=_clip("; ".join(errors + warnings), 400),
        )
    comparison = compare(control.outcome, candidate.outcome, first=candidate.first)
    if comparison.verdict == "mismatch":  # one MCP result, shown as each host shows it?
        named = presentation_differences(
            control.outcome, candidate.outcome, control.wire, candidate.wire
        )
        comparison = Comparison("expected", named) if named else comparison
    if comparison.differences != (CONTENT_ARRAY_PARSED,):  # its runs are compared already
        given = set(case.answers)
        comparison = with_asked(comparison, compare_asked(control.rounds, candidate.rounds, given))
    message = _explain(
        comparison.verdict,
        comparison.differences,
        *(comparison.compared or (control.outcome, candidate.outcome)),
    )
    return VerifyCase(
        index=index,
        verdict=comparison.verdict,
        differences=list(comparison.differences),
        inputs=inputs,
        control=dump(control.outcome),
        candidate=dump(candidate.outcome),
        message=_clip("; ".join([m for m in (message, *warnings) if m]), 400),
    )


@dataclass(frozen=True)
class Trial:
    """One case and the two targets it runs through; `index` names it in the report."""

    before: Target
    after: Target
    case: Case
    index: int


def verify_cases(
    before: Target,
    after: Target,
    cases: Sequence[Case],
    *,
    jobs: int = 1,
    timeout: float | None = None,
) -> list[VerifyCase]:
    """Every case through both targets, in case order (see `verify_trials`)."""
    trials = [Trial(before, after, case, index) for index, case in enumerate(cases)]
    return verify_trials(trials, jobs=jobs, timeout=timeout)


def verify_trials(
    trials: Sequence[Trial], *, jobs: int = 1, timeout: float | None = None
) -> list[VerifyCase]:
    """Every trial run and compared, in the order given, `jobs` at once (the command's one
    event loop: bridge.edge)."""
    return edge.run(functools.partial(_verify_all, list(trials), jobs, timeout))


async def _verify_all(trials: list[Trial], jobs: int, timeout: float | None) -> list[VerifyCase]:
    """`jobs` workers take the trials in turn, in one task group.

    Each worker keeps the MCP servers it started (on first use) for its later
    trials, as JP keeps a server running across calls, and stops them when it ends.
    """
    results: dict[int, VerifyCase] = {}
    queue = iter(enumerate(trials))
    workers = max(1, min(jobs, len(trials)))
    # Local tools wait in worker threads: one each, however many jobs.
    limiter = anyio.to_thread.current_default_thread_limiter()
    limiter.total_tokens = max(limiter.total_tokens, workers)

    async def worker() -> None:
        async with SessionPool() as sessions:
            for number, trial in queue:
                results[number] = await verify_case(
                    trial.before, trial.after, trial.case, trial.index,
                    timeout=timeout, sessions=sessions,
                )  # fmt: skip

    async with anyio.create_task_group() as group:
        for _ in range(workers):
            group.start_soon(worker)
    return [results[number] for number in range(len(trials))]
