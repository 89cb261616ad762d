#!/usr/bin/env python3
"""Lint a commit message against our conventional-commit rules."""
import json
import re

import typer

TYPES = ("feat", "fix", "docs", "chore", "refactor", "test", "perf", "ci", "build")
HEADER = re.compile(r"^(?P<type>[a-z]+)(\([a-z0-9_-]+\))?!?: (?P<subject>.+)$")


def lint(message: str) -> list[str]:
    lines = message.split("\n")
    header = lines[0]
    issues = []
    m = HEADER.match(header)
    if not m:
        return ["header must look like 'type(scope): subject'"]
    if m["type"] not in TYPES:
        issues.append(f"unknown type '{m['type']}' (allowed: {', '.join(TYPES)})")
    if len(header) > 72:
        issues.append(f"header is {len(header)} chars, max 72")
    if m["subject"].endswith("."):
        issues.append("subject must not end with a period")
    if m["subject"][:1].isupper():
        issues.append("subject should start lowercase")
    if len(lines) > 1 and lines[1].strip():
        issues.append("second line must be blank")
    return issues


def main(message: str = typer.Option(..., "--message", "-m")):
    if not message.strip() or message == "null":
        typer.echo(json.dumps({"type": "error", "message": "empty commit message", "trace": [], "transient": False}))
        raise typer.Exit(0)
    issues = lint(message)
    if issues:
        result = {"type": "error", "message": f"commit message has {len(issues)} problem(s)",
                  "trace": issues, "transient": False}
    else:
        result = {"type": "success", "content": "commit message OK"}
    typer.echo(json.dumps(result))


if __name__ == "__main__":
    typer.run(main)
