"""`jp-migrate bridge run` and `jp-migrate verify`.

Exit codes: `bridge run` 0 the tool completed, 1 it completed with an error
result, 2 it could not run; `verify` 0 every case matched or differed as
expected, 1 a case mismatched, 2 a case could not run (or bad usage).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.modes import HOST_MODES, HostMode, plain_local
from jp_migrate.commands.options import F, jobs_option, quiet_option, report_option
from jp_migrate.contract.jsontext import load_json
from jp_migrate.errors import ContractError
from jp_migrate.seconds import is_seconds
from jp_migrate.visible import line


class Seconds(click.ParamType):
    """A finite number of seconds above 0 (`click.FloatRange` lets `nan` and `inf` through)."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not is_seconds(seconds):
            self.fail(f"{value!r}: expected a number of seconds above 0", param, ctx)
        return seconds


def _timeout(what: str = "a run is killed") -> Callable[[F], F]:
    """`--timeout S`: seconds before `what`."""
    return click.option("--timeout", metavar="S", type=Seconds(), help=f"Seconds before {what}.")


def _json_option(value: str | None, option: str) -> dict[str, Any]:
    """A JSON object given inline or as `@FILE`."""
    if value is None:
        return {}
    source = option
    text = value
    if value.startswith("@"):
        source = value[1:]
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise BridgeError(f"cannot read {option} file: {exc}", source=source) from None
    try:
        obj = load_json(text)  # as serde_json reads it: no NaN, no recursion error
    except ContractError as exc:
        raise BridgeError(f"{option} is not valid JSON: {exc.reason}", source=source) from None
    if not isinstance(obj, dict):
        raise BridgeError(f"{option} must be a JSON object", source=source)
    return obj


def _fail(exc: Exception) -> int:
    click.echo(f"error: {line(str(exc))}", err=True)
    return 2


def _warn(warnings: list[str]) -> None:
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


@click.group()
def bridge() -> None:
    """Run JP tools (local or MCP) the way JP runs them, and show their results."""


@bridge.command("run")
@click.argument("tool", required=False)
@click.option(
    "--workspace",
    "-w",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The workspace (its .jp/ config names the tools; tools run in its root).",
)
@click.option(
    "--args", "args_json", metavar="JSON", help="The tool's arguments: a JSON object, or @FILE."
)
@click.option(
    "--answers",
    "answers_json",
    metavar="JSON",
    help="Answers by question id: a JSON object, or @FILE.",
)
@click.option(
    "--options", "options_json", metavar="JSON", help="Per-tool options: a JSON object, or @FILE."
)
@click.option(
    "--protocol",
    type=click.Choice(HOST_MODES),
    default="auto",
    show_default=True,
    help="How to read the tool's output: legacy (an Outcome), blocks (RFD 058), raw (plain "
    "text), or auto (tell from the output).",
)
@click.option(
    "--command",
    "command",
    metavar="TEMPLATE",
    help="Run this command template instead of a configured tool.",
)
@click.option("--name", help="The tool name for --command (tool.name in the template).")
@_timeout()
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result as JSON (text, status, is_error, questions), as `verify` compares it.",
)
@click.option("--no-input", is_flag=True, help="Never prompt, even on a terminal.")
def run(
    tool: str | None,
    workspace: Path,
    args_json: str | None,
    answers_json: str | None,
    options_json: str | None,
    protocol: HostMode,  # one of HOST_MODES (click.Choice)
    command: str | None,
    name: str | None,
    timeout: float | None,
    as_json: bool,
    no_input: bool,
) -> int:
    """Run TOOL from the workspace's JP config (or --command TEMPLATE) and print its result.

    The tool runs the way JP runs it: its command rendered with the tool
    context, in the workspace root (MCP tools through their configured server).
    Questions are answered from --answers, then at a prompt on a terminal,
    then with the question's default; the tool is re-run until it completes.

    Exit 0 it completed, 1 it completed with an error result, 2 it could not run.
    """
    from jp_migrate.bridge.target import Inputs, Target, run_local, run_target

    try:
        if command is not None:
            if tool is not None:
                raise click.UsageError("give either TOOL or --command, not both")
            if not workspace.is_dir():
                raise BridgeError("not a directory", source=str(workspace))
            target = Target.from_template(command, name or "tool", workspace)
        else:
            if tool is None:
                raise click.UsageError("name a TOOL, or give --command TEMPLATE")
            target = Target.from_workspace(workspace, tool)
        inputs = Inputs(
            _json_option(args_json, "--args"),
            _json_option(answers_json, "--answers"),
            _json_option(options_json, "--options"),
        )
        first = None
        if not target.is_mcp:
            # One local run, read without the models when that is certain (most runs):
            # the JSON printed is `dump` of the same NormalizedOutcome (convert.host).
            first = run_local(target, inputs, inputs.answers, timeout=timeout)
            plain = plain_local(first, protocol) if as_json else None
            if plain is not None:
                click.echo(json.dumps(plain, indent=2, ensure_ascii=False))
                return 1 if plain["is_error"] else 0
        from jp_migrate.bridge.edge import run as run_async
        from jp_migrate.bridge.progress import progress_bar
        from jp_migrate.bridge.questions import (
            AnswerSource,
            is_interactive,
            terminal_asker,
            terminal_wants,
        )

        terminal = is_interactive() and not no_input
        asker = terminal_asker if terminal else None
        source = AnswerSource(inputs.answers, asker, terminal_wants if terminal else None)
        bar = progress_bar(target.name) if target.is_mcp else None
        run_it = functools.partial(
            run_target, target, inputs, mode=protocol, source=source, timeout=timeout,
            first=first, progress=bar,
        )  # fmt: skip
        try:
            resolution = run_async(run_it)
        finally:
            if bar is not None:
                bar.close()
    except BridgeError as exc:
        return _fail(exc)
    from jp_migrate.contract.parse import dump

    _warn(resolution.warnings)
    outcome = resolution.outcome
    if as_json:
        click.echo(json.dumps(dump(outcome), indent=2, ensure_ascii=False))
    else:
        from jp_migrate.bridge.show import outcome_panel

        outcome_panel(target.name, outcome, resolution.answers)
    return 1 if outcome.is_error else 0


@bridge.command("import")
@click.option("--mcp", "server", required=True, metavar="SERVER", help="The configured MCP server.")
@click.option("--tool", metavar="NAME", help="Import this tool only (default: every tool).")
@click.option("--force", is_flag=True, help="Overwrite a tool config that exists.")
@click.option(
    "--workspace",
    "-w",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The workspace whose .jp/config.toml configures [providers.mcp.SERVER].",
)
@_timeout("listing the tools is given up")
def import_(
    server: str, tool: str | None, force: bool, workspace: Path, timeout: float | None
) -> int:
    """Write .jp/mcp/tools/<tool>.toml for the tools of MCP server SERVER (RFD D08).

    Each file names the tool as `mcp.SERVER.<tool>`, with the summary and
    description of the tool's definition and parameters from its input schema.
    An existing file is left as it is unless --force.

    Exit 0 every file written, 2 one was not (or the server could not be asked).
    """
    from jp_migrate.bridge.importer import import_tools

    try:
        results = import_tools(workspace, server, tool=tool, force=force, timeout=timeout)
    except BridgeError as exc:
        return _fail(exc)
    for result in results:
        if result.error:
            click.echo(f"error: {line(f'{result.path}: {result.error}')}", err=True)
        else:
            click.echo(line(f"wrote {result.path}"))
    return 2 if any(r.error for r in results) else 0


@click.command()
@click.option(
    "--before",
    metavar="TEMPLATE",
    help="The tool before migration, as a command template (as in JP's config).",
)
@click.option(
    "--after", metavar="TEMPLATE", help="The tool after migration, as a command template."
)
@click.option(
    "--workspace",
    "-w",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="The workspace for both sides.  [default: .]",
)
@click.option(
    "--before-workspace",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="The workspace of the tool before migration.",
)
@click.option(
    "--after-workspace",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="The workspace of the tool after migration.",
)
@click.option(
    "--tool",
    metavar="NAME",
    help="The tool name on both sides (and the tool whose calls --cases-from replays).",
)
@click.option("--before-tool", metavar="NAME", help="The tool's name before migration.")
@click.option("--after-tool", metavar="NAME", help="The tool's name after migration.")
@click.option(
    "--name",
    metavar="NAME",
    help="tool.name for command templates.  [default: --tool, else 'tool']",
)
@click.option(
    "--cases",
    metavar="FILE",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Cases, one JSON object per line.",
)
@click.option(
    "--cases-from",
    metavar="PATH",
    type=click.Path(file_okay=False, path_type=Path),
    help="Replay --tool's real calls from the conversations under PATH (a workspace or "
    "storage root).",
)
@click.option(
    "--in-place",
    is_flag=True,
    help="With --cases-from: run in the real workspace, not a scratch copy.",
)
@jobs_option("Cases run at once.")
@_timeout()
@report_option
@quiet_option("the mismatches and the cases that could not run (no counts)")
def verify(
    before: str | None,
    after: str | None,
    workspace: Path | None,
    before_workspace: Path | None,
    after_workspace: Path | None,
    tool: str | None,
    before_tool: str | None,
    after_tool: str | None,
    name: str | None,
    cases: Path | None,
    cases_from: Path | None,
    in_place: bool,
    jobs: int,
    timeout: float | None,
    reports: tuple[str, ...],
    quiet: bool,
) -> int:
    """Run a tool before and after its migration on the same cases and compare the results.

    Each side is a command template (--before/--after) or a tool in a
    workspace's JP config (--tool, --before-tool/--after-tool, with --workspace
    or --before-workspace/--after-workspace). Both sides run under one tool
    name (--name, else the one before migration). The tool before migration is
    read the way today's JP reads tool output (the legacy `Outcome` JSON), the
    one after it the way JP reads RFD 058 content blocks.

    A cases file has one JSON object per line: {"arguments", "answers",
    "options"}, optionally "name" (a label) and "tool" (the line is for that
    tool only: --tool, else --after-tool, else --name, else the name before
    migration: its --before-tool, or 'tool' for a command).

    Each case is reported as match; expected (a difference the new protocol
    makes on purpose, named); mismatch (naming what differs: text, status,
    error flag, questions); or error (it could not run), with its inputs and
    both results. Exit 0 all good, 1 a mismatch, 2 a case could not run.
    """
    from jp_migrate.bridge.verify import cases_from_store, load_cases, scratch_roots, verify_cases
    from jp_migrate.errors import JpMigrateError

    if (cases is None) == (cases_from is None):
        raise click.UsageError("give exactly one of --cases FILE or --cases-from STORE")
    if cases_from is not None and tool is None:
        raise click.UsageError(
            "--cases-from needs --tool NAME (the tool whose stored calls to replay)"
        )
    try:
        control = _side(
            before, before_workspace or workspace, before_tool or tool, name or tool, "before"
        )
        candidate = _side(
            after, after_workspace or workspace, after_tool or tool, name or tool, "after"
        )
        # One name on both sides: it is the same tool, before and after (tool.name, failure texts).
        common = name or control.call_name
        control, candidate = control.named(common), candidate.named(common)
        # Lines naming a tool are for that tool only; commands without --name are 'tool'.
        for_tool = tool or after_tool or name or common
        if cases is not None:
            loaded = load_cases(cases, tool=for_tool)
        else:
            loaded = cases_from_store(cases_from, tool)  # type: ignore[arg-type]
        if not loaded:  # a gate that verified nothing must not pass
            raise JpMigrateError(
                f"{cases or cases_from}: no cases"
                + (
                    f" for tool {for_tool!r} (lines naming another tool are skipped)"
                    if for_tool
                    else ""
                )
            )
        if cases_from is not None and not in_place:
            with scratch_roots([control, candidate]) as (scratch_control, scratch_candidate):
                results = verify_cases(
                    scratch_control, scratch_candidate, loaded, jobs=jobs, timeout=timeout
                )
        else:
            results = verify_cases(control, candidate, loaded, jobs=jobs, timeout=timeout)
    except JpMigrateError as exc:
        return _fail(exc)
    from jp_migrate.bridge.show import verify_report

    report = verify_report(results)
    if reports:
        from jp_migrate.report import emit_reports

        emit_reports(report, reports)
    else:
        from jp_migrate.bridge.show import print_verify

        print_verify(results, quiet=quiet)
    return report.exit_code


def _side(
    template: str | None, workspace: Path | None, tool: str | None, name: str | None, side: str
) -> Any:
    from jp_migrate.bridge.target import Target

    if template is not None:
        root = workspace or Path.cwd()
        if not root.is_dir():
            raise BridgeError("not a directory", source=str(root))
        return Target.from_template(template, name or "tool", root)
    if tool is None:
        raise click.UsageError(
            f"the {side} side needs --{side} TEMPLATE, or a tool name (--tool / --{side}-tool)"
        )
    return Target.from_workspace(workspace or Path.cwd(), tool)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(bridge())
