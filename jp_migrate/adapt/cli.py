"""`jp-migrate adapt`: the three adapters behind one command (local tool, MCP server, config)."""

from __future__ import annotations

from pathlib import Path

import click


def _seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    import math

    if value is not None and (not math.isfinite(value) or value <= 0):
        raise click.BadParameter("expected a number of seconds above 0")
    return value


def _size(ctx: click.Context, param: click.Parameter, value: str | None) -> int:
    from jp_migrate.adapt.limits import MAX_MESSAGE, parse_size

    if value is None:
        return MAX_MESSAGE
    size = parse_size(value)
    if size is None:
        raise click.BadParameter("expected a number of bytes above 0 (e.g. 65536, 64MiB, 1GiB)")
    return size


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--name", metavar="NAME", help="The tool's name, for failure texts (default: CMD's file name)."
)
@click.option(
    "--provenance",
    is_flag=True,
    help="Add input/output sha256, the adapter and the rule applied under _meta.",
)
@click.option(
    "--timeout",
    type=float,
    callback=_seconds,
    metavar="S",
    help="Kill the tool (its process group) after S seconds.",
)
@click.option(
    "--max-message",
    "limit",
    callback=_size,
    metavar="SIZE",
    help=(
        "The largest JSON message (--mcp) or tool output document read whole, in bytes or"
        " with KiB, MiB, GiB (default 64MiB)."
    ),
)
@click.option(
    "--mcp",
    "mcp",
    is_flag=True,
    help="Serve MCP over stdio in front of SERVER_CMD, an MCP server speaking the legacy protocol.",
)
@click.option(
    "--config",
    "config",
    is_flag=False,
    flag_value=".",
    default=None,
    metavar="[PATH]",
    help="Edit the JP configs of the workspace at PATH (default .) to use the adapters.",
)
@click.option("--tool", "tools", multiple=True, metavar="NAME", help="--config: this local tool.")
@click.option(
    "--unmigratable", is_flag=True, help="--config: every local tool the codemod cannot migrate."
)
@click.option(
    "--server", "servers", multiple=True, metavar="NAME", help="--config: this MCP server."
)
@click.option("--check", is_flag=True, help="--config: exit 1 if a config would change.")
@click.option("--diff", is_flag=True, help="--config: show the changes, write nothing.")
@click.option("--undo", is_flag=True, help="--config: restore what the adapter replaced.")
@click.option("--force", is_flag=True, help="--config: also edit values changed by hand since.")
@click.option(
    "--adapter-command",
    default="jp-migrate",
    show_default=True,
    metavar="CMD",
    help="--config: how the configs run jp-migrate.",
)
def adapt(
    command: tuple[str, ...],
    name: str | None,
    provenance: bool,
    timeout: float | None,
    limit: int,
    mcp: bool,
    config: str | None,
    tools: tuple[str, ...],
    unmigratable: bool,
    servers: tuple[str, ...],
    check: bool,
    diff: bool,
    undo: bool,
    force: bool,
    adapter_command: str,
) -> int:
    """Run a legacy tool and print the RFD 058 envelope the new JP host needs.

    \b
    jp-migrate adapt [--name NAME] -- CMD [ARGS...]
    jp-migrate adapt --mcp -- SERVER_CMD [ARGS...]
    jp-migrate adapt --config [PATH] (--tool NAME | --server NAME | --unmigratable)
                     [--check | --diff] [--undo] [--force]

    CMD runs with this process's stdin, environment and working directory; its
    exit status is adapt's. Its Outcome becomes the envelope that shows the new
    host what the old one showed, an envelope it printed passes through
    unchanged, and a failure shown
    only by its exit status becomes an isError result with the legacy host's
    text (details under _meta).

    --config edits the workspace's JP configs (.jp/config.toml, the files it
    extends, .jp/mcp/tools/**/*.toml) so the chosen tools run behind the
    adapters; formatting and comments are kept, a marker comment records the
    value replaced (for --undo) and a value changed by hand since is left alone
    without --force.
    """
    if config is not None:
        if command:
            raise click.UsageError("--config takes no command")
        from jp_migrate.adapt.config_cli import run_config

        return run_config(
            Path(config),
            tools=tools,
            servers=servers,
            unmigratable=unmigratable,
            check=check,
            diff=diff,
            undo=undo,
            force=force,
            adapter=adapter_command,
        )
    if not command:
        raise click.UsageError("give the command to run after --")
    if mcp:
        from jp_migrate.adapt.mcp_serve import serve

        return serve(list(command), limit=limit)
    from jp_migrate.adapt.local import adapt_local

    return adapt_local(command, name=name, provenance=provenance, timeout=timeout, limit=limit)
