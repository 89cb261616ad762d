"""`jp-migrate adapt`: the three adapters behind one command (local tool, MCP server, config)."""

from __future__ import annotations

import click


def _seconds(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    import math

    if value is not None and (not math.isfinite(value) or value <= 0):
        raise click.BadParameter("expected a number of seconds above 0")
    return value


@click.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--name", help="The tool's name, for failure texts (default: CMD's file name).")
@click.option(
    "--provenance",
    is_flag=True,
    help="Add input/output sha256, the adapter and the rule applied under _meta.",
)
@click.option(
    "--timeout", type=float, callback=_seconds, help="Kill the tool after this many seconds."
)
@click.option(
    "--mcp", "mcp", is_flag=True, help="Serve MCP over stdio in front of a D31 --jp server."
)
def adapt(
    command: tuple[str, ...],
    name: str | None,
    provenance: bool,
    timeout: float | None,
    mcp: bool,
) -> int:
    """Run a legacy tool and print the RFD 058 envelope the new JP host needs.

    \b
    jp-migrate adapt [--name NAME] -- CMD [ARGS...]
    jp-migrate adapt --mcp -- SERVER_CMD [ARGS...]

    CMD runs with this process's stdin, environment and working directory; its
    exit status is adapt's. Its Outcome becomes the envelope SPEC §2 maps it
    to, an envelope it printed passes through unchanged, and a failure shown
    only by its exit status becomes an isError result with the legacy host's
    text (details under _meta).
    """
    if not command:
        raise click.UsageError("give the command to run after --")
    if mcp:
        from jp_migrate.adapt.mcp import serve

        return serve(list(command))
    from jp_migrate.adapt.local import adapt_local

    return adapt_local(command, name=name, provenance=provenance, timeout=timeout)
