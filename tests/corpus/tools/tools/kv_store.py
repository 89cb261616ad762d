#!/usr/bin/env python3
"""A file-per-key store on disk. Reads from data/kv, writes go to scratch/kv."""
import json
import os
import re
from dataclasses import asdict, dataclass, field
from typing import Optional

import typer

app = typer.Typer(add_completion=False)

READ_DIR = "data/kv"
WRITE_DIR = "scratch/kv"
KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@dataclass
class Ok:
    content: str
    type: str = "success"


@dataclass
class Err:
    message: str
    trace: list = field(default_factory=list)
    transient: bool = False
    type: str = "error"


def out(result) -> None:
    typer.echo(json.dumps(asdict(result)))


def lookup(key: str) -> Optional[str]:
    for d in (WRITE_DIR, READ_DIR):
        p = os.path.join(d, key)
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as fh:
                return fh.read()
    return None


@app.command()
def main(op: str = typer.Option(...), key: str = typer.Option("null"), value: str = typer.Option("null")):
    if op == "list":
        keys = sorted(os.listdir(READ_DIR))
        out(Ok(content="\n".join(keys) if keys else "(empty)"))
        return
    if key == "null" or not KEY_RE.match(key):
        out(Err(message=f"invalid key {key!r}", trace=["keys are lowercase, start with a letter, max 64 chars"]))
        return
    if op == "get":
        val = lookup(key)
        if val is None:
            out(Err(message=f"no such key: {key}"))
        else:
            out(Ok(content=val))
    elif op == "set":
        if value == "null":
            out(Err(message="set needs a value"))
            return
        os.makedirs(WRITE_DIR, exist_ok=True)
        with open(os.path.join(WRITE_DIR, key), "w", encoding="utf-8") as fh:
            fh.write(value)
        out(Ok(content=f"{key} = {value}"))
    else:
        out(Err(message=f"unknown op {op}", trace=["use get, set or list"]))


if __name__ == "__main__":
    app()
