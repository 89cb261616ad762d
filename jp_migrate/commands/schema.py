from __future__ import annotations

import click

from jp_migrate.contract.schemas import SCHEMA_NAMES, schema_text


@click.command()
@click.argument("name", required=False, type=click.Choice(SCHEMA_NAMES))
def schema(name: str | None) -> int:
    """Print the JSON Schema NAME, or list the shipped schemas."""
    if name is None:
        for each in SCHEMA_NAMES:
            click.echo(each)
        return 0
    click.echo(schema_text(name), nl=False)
    return 0
