"""What to run (a `Target`: a local command or an MCP tool, rooted in a workspace) and running it.

A run is one case's inputs through one host (`HostMode`), re-run with answers
until the tool stops asking (questions.resolve), reduced to a NormalizedOutcome.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jp_migrate.bridge.command import CommandSpec, parse_command
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.local import run_process
from jp_migrate.bridge.modes import HostMode
from jp_migrate.bridge.template import tool_context
from jp_migrate.convert.host import ToolRun

if TYPE_CHECKING:
    from mcp_types import ElicitResult

    from jp_migrate.bridge.config import McpServer
    from jp_migrate.bridge.forms import Form
    from jp_migrate.bridge.mcp_client import McpSession, OnProgress, SessionPool
    from jp_migrate.bridge.questions import AnswerSource, Resolution
    from jp_migrate.contract.normalized import NormalizedOutcome

# The host readings (`protocol`, pydantic) load on first use: `bridge run --json`
# prints a plain reading of a local run without them (cli.run, protocol.plain_local).

STATE_ONLY_RETRIES = 10  # input_required with request_state only: retry, with a short back-off


@dataclass(frozen=True)
class Inputs:
    """One call's inputs: what the model sent, answers known up front, per-tool options."""

    arguments: Mapping[str, Any] = field(default_factory=dict)
    answers: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Target:
    """A tool the bridge can run: exactly one of `command` (local) or `server` (MCP)."""

    name: str
    root: Path
    command: CommandSpec | None = None
    server: McpServer | None = None
    remote_name: str = ""
    workspace_id: str | None = None
    origin: str = ""  # where it was defined, for messages
    alias: str = ""  # the name to present instead (verify runs both sides under one name)
    copied_from: Path | None = None  # run in a scratch copy (`relocated`): the workspace copied

    @classmethod
    def from_template(cls, template: str, name: str, root: Path) -> Target:
        """An ad-hoc local tool: `template` is a command string, rendered like a config's."""
        return cls(
            name=name,
            root=root.resolve(),
            command=parse_command(template, source="--command"),
            origin="--command",
        )

    @classmethod
    def from_workspace(cls, directory: Path, tool: str) -> Target:
        """The tool named `tool` in the JP config of the workspace at (or above) `directory`."""
        from jp_migrate.bridge.config import load_workspace

        ws = load_workspace(directory)
        config = ws.tool(tool)
        return cls(
            name=tool,
            root=ws.root,
            command=config.command,
            server=config.server,
            remote_name=config.remote_name,
            workspace_id=ws.workspace_id,
            origin=config.source,
        )

    @property
    def call_name(self) -> str:
        """The name JP hands the tool (`local.<tool>` / `mcp.<server>.<tool>`, else the config's)."""
        return self.alias or self.remote_name or self.name

    @property
    def is_mcp(self) -> bool:
        return self.server is not None

    def rooted(self, root: Path) -> Target:
        return dataclasses.replace(self, root=root)

    def relocated(self, copy: Path) -> Target:
        """The same tool run in `copy` of its workspace.

        Command words that name an existing path outside the workspace (say
        `../mcp_server/server.py`) are made absolute, since the copy does not
        bring them along; an absolute path inside the workspace is moved into
        the copy, so the copy's (say, migrated) file runs and the workspace is
        left alone; everything else resolves in the copy.
        """
        command = self.command
        if command is not None:
            command = CommandSpec(
                _anchor(command.program, self.root, copy),
                tuple(_anchor(arg, self.root, copy) for arg in command.args),
                command.shell,
            )
        server = self.server
        if server is not None:
            server = dataclasses.replace(
                server,
                command=_anchor(server.command, self.root, copy),
                args=tuple(_anchor(arg, self.root, copy) for arg in server.args),
            )
        return dataclasses.replace(
            self,
            root=copy,
            command=command,
            server=server,
            copied_from=self.copied_from or self.root,
        )

    def named(self, alias: str) -> Target:
        """The same tool, presented to itself (and in failure texts) as `alias`."""
        return dataclasses.replace(self, alias=alias)

    def context(self, inputs: Inputs, answers: Mapping[str, Any]) -> dict[str, Any]:
        return tool_context(
            self.call_name,
            inputs.arguments,
            answers,
            inputs.options,
            self.root,
            workspace_id=self.workspace_id,
        )


def _anchor(word: str, root: Path, copy: Path) -> str:
    """`word` as it must read when the workspace `root` is run from `copy`.

    A relative path to something outside `root` is made absolute; an absolute
    path inside `root` (as written, or once `root` is resolved) names the same
    place in `copy`. Where a relative path lies is decided by its directory, not
    by what its last name links to: a symlinked tool in the workspace is copied
    with it (and, in check's copy, migrated there as a file of its own), so it
    runs from the copy.
    """
    if not word or "{" in word or word.startswith("-"):
        return word
    path = Path(word)
    if path.is_absolute():
        return _moved(path, root, copy)
    try:
        joined = root / word
        located = joined.parent.resolve() / joined.name
        outside = located.exists() and not located.is_relative_to(root.resolve())
    except (OSError, ValueError):
        return word
    return str(located) if outside else word


def _moved(path: Path, root: Path, copy: Path) -> str:
    """An absolute `path` inside `root` as the same place in `copy`; any other unchanged.

    Inside as written, or once the symlinks in its directory and in `root` are
    resolved (its last name is left as it is, as for a relative path).
    """
    try:
        spellings = (path, path.parent.resolve() / path.name)
        bases = (root.absolute(), root.resolve())
    except (OSError, RuntimeError):  # a symlink loop: compare as written
        spellings, bases = (path,), (root.absolute(),)
    for spelling in spellings:
        for base in bases:
            if spelling.is_relative_to(base):
                return str(copy / spelling.relative_to(base))
    return str(path)


Step = Callable[[dict[str, Any]], Awaitable["tuple[NormalizedOutcome, list[str]]"]]


def run_local(
    target: Target, inputs: Inputs, answers: Mapping[str, Any], *, timeout: float | None = None
) -> ToolRun:
    """One execution of a local tool with `answers`, as the host sees it (not yet read)."""
    assert target.command is not None
    argv = target.command.argv(
        target.context(inputs, answers), source=target.origin or f"tool {target.name!r}"
    )
    return run_process(target.call_name, argv, target.root, timeout=timeout)


def _local_step(
    target: Target,
    inputs: Inputs,
    mode: HostMode,
    timeout: float | None,
    first: ToolRun | None = None,
) -> Step:
    import anyio

    from jp_migrate.bridge.protocol import interpret_local

    pending = [first] if first is not None else []

    async def step(answers: dict[str, Any]) -> tuple[NormalizedOutcome, list[str]]:
        # The process runner waits in a worker thread, as it does on its own (bridge.local).
        execute = functools.partial(run_local, target, inputs, answers, timeout=timeout)
        run = pending.pop() if pending else await anyio.to_thread.run_sync(execute)
        normalized = interpret_local(run, mode)
        return normalized.outcome, normalized.warnings

    return step


async def _mcp_run(
    target: Target,
    inputs: Inputs,
    mode: HostMode,
    source: AnswerSource,
    timeout: float | None,
    sessions: SessionPool | None,
    progress: OnProgress | None,
) -> Resolution:
    from jp_migrate.bridge.mcp_client import McpSession

    assert target.server is not None
    # The RFD 058 host (and auto, which is it with D31's unwrap) declares elicitation and
    # reads resource links; the legacy host (and raw) is JP's today.
    rfd058 = mode in ("auto", "blocks")
    if sessions is None:
        async with McpSession(target.server, target.root, timeout=timeout, rfd058=rfd058) as own:
            return await _mcp_resolve(own, target, inputs, mode, source, progress)
    session = await sessions.session(target.server, target.root, timeout, rfd058=rfd058)
    try:
        return await _mcp_resolve(session, target, inputs, mode, source, progress)
    except BridgeError:
        sessions.discard(session)  # a timed-out or broken server is not reused
        raise


async def _mcp_resolve(
    session: McpSession,
    target: Target,
    inputs: Inputs,
    mode: HostMode,
    source: AnswerSource,
    progress: OnProgress | None,
) -> Resolution:
    import anyio

    from jp_migrate.bridge.mcp_client import Pending, jp_meta
    from jp_migrate.bridge.protocol import input_required_outcome, interpret_mcp
    from jp_migrate.bridge.questions import FormAnswers, answered, resolve

    remote = target.remote_name or target.name
    pending: Pending | None = None
    forms = FormAnswers(source.given, source.ask, source.wants)
    during: dict[str, Any] = {}  # answers to what the server asked during a call
    wire: dict[str, Any] | None = None

    async def elicit(form: Form) -> ElicitResult:
        """A question asked during the call: the same answers, checks and prompts as any."""
        forms.optional |= form.optional
        got = {question.id: await forms.get(question) for question in form.questions}
        during.update(got)
        return form.reply(got)

    call = functools.partial(
        session.call, remote, inputs.arguments, elicit=elicit, progress=progress
    )

    async def step(answers: dict[str, Any]) -> tuple[NormalizedOutcome, list[str]]:
        nonlocal pending, wire
        answers = answered(answers)
        meta = jp_meta(target.context(inputs, answers))
        result = await call(meta=meta, pending=pending, answers=answers)
        delay = 0.05
        for _ in range(STATE_ONLY_RETRIES):
            if result.pending is None or result.pending.forms.questions:
                break
            await anyio.sleep(delay)
            delay = min(delay * 2, 0.25)
            result = await call(meta=meta, pending=result.pending, answers=answers)
        pending = result.pending
        if pending is not None:
            forms.optional |= pending.forms.optional
            if not pending.forms.questions:
                raise BridgeError(
                    f"tools/call {remote!r} kept answering input_required with state only",
                    source=session.label,
                )
            outcome = input_required_outcome(pending.forms.questions, stderr=result.stderr)
            return outcome, result.warnings
        assert result.result is not None
        wire = result.result
        normalized = interpret_mcp(
            result.result, target.call_name, mode, stderr=result.stderr, links=result.links
        )
        return normalized.outcome, result.warnings + normalized.warnings

    resolution = await resolve(step, forms, answers=inputs.answers)
    resolution.answers = answered({**during, **resolution.answers})
    resolution.wire = wire
    return resolution


async def run_target(
    target: Target,
    inputs: Inputs,
    *,
    mode: HostMode = "auto",
    source: AnswerSource | None = None,
    timeout: float | None = None,
    sessions: SessionPool | None = None,
    first: ToolRun | None = None,
    progress: OnProgress | None = None,
) -> Resolution:
    """Run `target` until it completes; BridgeError when it cannot run or cannot be answered.

    With `sessions`, an MCP server is started once and kept for later runs (as
    JP keeps its servers running); without, each run starts and stops its own.
    `first` is a local tool's first run already made (`run_local` with
    `inputs.answers`), read instead of running the tool again. `progress` is told
    an MCP call's progress notifications.
    """
    from jp_migrate.bridge.questions import AnswerSource, resolve

    source = source if source is not None else AnswerSource(given=inputs.answers)
    if target.is_mcp:
        return await _mcp_run(target, inputs, mode, source, timeout, sessions, progress)
    step = _local_step(target, inputs, mode, timeout, first)
    return await resolve(step, source, answers=inputs.answers)
