from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from jp_migrate.errors import ContractError


def _read(path: str) -> tuple[str, bytes]:
    if path == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        return path, Path(path).read_bytes()
    except OSError as exc:
        raise ContractError(f"cannot read: {exc.strerror or exc}", source=path) from None


def _documents(path: Path) -> list[str]:
    if path.is_dir():
        return [str(p) for p in sorted(path.rglob("*.json"))]
    return [str(path)]


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--compact", is_flag=True, help="One line of JSON per document.")
def convert(paths: tuple[str, ...], compact: bool) -> int:
    """Convert legacy Outcome JSON documents (files, directories of *.json, or -) to envelopes.

    Prints one envelope per document, labelled with its source. A document that
    is not an Outcome is named with the reason; the others still convert (exit 2).
    """
    from jp_migrate.contract.parse import dump, parse_outcome
    from jp_migrate.convert.upgrade import outcome_to_envelope

    failed = 0
    files = [doc for p in paths for doc in (["-"] if p == "-" else _documents(Path(p)))]
    for file in files:
        try:
            source, data = _read(file)
            envelope = dump(outcome_to_envelope(parse_outcome(data, source=source)))
        except ContractError as exc:
            click.echo(f"error: {exc}", err=True)
            failed += 1
            continue
        text = json.dumps(envelope, ensure_ascii=False, indent=None if compact else 2)
        click.echo(text if compact else f"# {source}\n{text}")
    return 2 if failed else 0
