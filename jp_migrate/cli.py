"""The `jp-migrate` command group.

Subcommands are imported only when they run (`LazyGroup`), so `--help` and
`--version` never pay for pydantic, libcst or the MCP SDK.
Exit codes: 0 nothing to do / all good, 1 something would change or differs,
2 a usage, input or environment error.
"""

from __future__ import annotations

import errno
import importlib
import io
import os
import sys
from typing import NoReturn

import click

from jp_migrate import __version__
from jp_migrate.interrupts import Terminated
from jp_migrate.visible import line

# name → ("module:attribute", one-line help shown by --help without importing the module)
COMMANDS: dict[str, tuple[str, str]] = {
    "convert": (
        "jp_migrate.commands.convert:convert",
        "Convert legacy Outcome documents to RFD 058 envelopes.",
    ),
    "schema": ("jp_migrate.commands.schema:schema", "Print a shipped JSON Schema (or list them)."),
    "rules": ("jp_migrate.commands.rules:rules", "List the rules, or run every rule's examples."),
    "conversations": (
        "jp_migrate.store.cli:conversations",
        "Migrate the tool responses stored in JP conversations to RFD 058.",
    ),
    "rollback": (
        "jp_migrate.store.rollback_cli:rollback",
        "Undo a `conversations` run: restore the files it changed (--list: the runs).",
    ),
    "prune": (
        "jp_migrate.store.rollback_cli:prune",
        "Remove run records and backups no longer wanted (default: runs rolled back).",
    ),
    "tools": (
        "jp_migrate.codemod.cli:tools",
        "Rewrite Python tools that print a legacy Outcome to print RFD 058.",
    ),
    "bridge": (
        "jp_migrate.bridge.cli:bridge",
        "Run a JP tool (local or MCP) as JP does and show its result.",
    ),
    "verify": (
        "jp_migrate.bridge.cli:verify",
        "Run a tool before and after its migration on the same cases; compare.",
    ),
    "check": (
        "jp_migrate.ci.cli:check",
        "For CI: what migrating the stores and tools would change (writes nothing).",
    ),
    "adapt": (
        "jp_migrate.adapt.cli:adapt",
        "Keep a legacy tool working under RFD 058: wrap its output, or edit its config.",
    ),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attr = target[0].partition(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jp-migrate")
def cli() -> None:
    """Migrate JP conversation stores and tools from the legacy protocol to RFD 058.

    \b
    A JP tool reports its result in one of two protocols:
      legacy   an Outcome JSON object: {"type": "success", "content": "…"}
               (an MCP tool returns it as its text, JP's bridge of RFD D31);
      RFD 058  an envelope of content blocks:
               {"content": [{"type": "text", "text": "…"}]}.

    Exit codes: 0 nothing to do, 1 something would change (or differs), 2 error.
    """


def _interrupted_code(exc: BaseException) -> int:
    """128 + the terminating signal found in `exc`'s chain, else 130 (Ctrl-C's SIGINT)."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, Terminated):
            return 128 + seen.signum
        seen = seen.__cause__ or seen.__context__
    return 130


def _terminated(signum: int, _frame: object) -> None:
    """SIGTERM/SIGHUP (a CI job cancelled, `timeout`, a closed terminal) end the run as
    Ctrl-C does: running tools (in sessions of their own, which the signal does not
    reach) are killed, MCP calls cancelled, scratch copies removed."""
    raise Terminated(signum)


def _on_termination() -> None:
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, _terminated)


class _ClosedOutput(io.TextIOBase):
    """Standard output when its descriptor was closed (`>&-`): a write fails, one line and
    exit 2 (as `ls` and `cat` do), instead of Python's None and a traceback."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "cannot write the output: standard output is closed")


def main(argv: list[str] | None = None) -> None:
    from jp_migrate.errors import JpMigrateError

    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
    _on_termination()
    try:
        code = cli.main(args=argv, prog_name="jp-migrate", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.Abort as exc:
        from jp_migrate.errors import InterruptReported

        if not isinstance(exc.__cause__, InterruptReported):  # else the command said what it left
            click.echo("Aborted.", err=True)
        sys.exit(_interrupted_code(exc))
    except click.ClickException as exc:
        exc.show()
        sys.exit(2 if exc.exit_code in (1, 2) else exc.exit_code)
    except JpMigrateError as exc:
        click.echo(f"error: {line(str(exc))}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        _broken_pipe()
    except OSError as exc:  # e.g. the output could not be written (a full disk)
        _os_error(exc)
    except KeyboardInterrupt as exc:
        sys.exit(_interrupted_code(exc))
    try:
        sys.stdout.flush()  # what is still buffered must reach its file now, or say why not
    except BrokenPipeError:
        _broken_pipe()
    except OSError as exc:
        _os_error(exc)
    # Subcommands return their exit code.
    sys.exit(code if isinstance(code, int) else 0)


def _broken_pipe() -> NoReturn:
    """The reader went away (`| head`): quietly, exit 1, as click (and so black) does for
    the same. Not `sys.exit`: the interpreter's own flush of what is still buffered would
    fail again, with a traceback."""
    os._exit(1)


def _os_error(exc: OSError) -> NoReturn:
    """One line, exit 2. Not `sys.exit`: the interpreter's own flush of a stdout that
    cannot be written would fail again at exit, with a traceback."""
    where = f"{exc.filename}: " if exc.filename else ""
    try:
        sys.stderr.write(f"error: {where}{exc.strerror or exc}\n")
        sys.stderr.flush()
    finally:
        os._exit(2)
