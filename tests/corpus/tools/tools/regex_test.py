#!/usr/bin/env python3
"""Try a regular expression against sample text and show the matches and groups."""
import json
import re
import sys

import click

FLAG_NAMES = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


def respond(obj):
    json.dump(obj, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")


@click.command()
@click.option("--pattern", required=True)
@click.option("--text", required=True)
@click.option("--flags", default="")
def main(pattern, text, flags):
    flags = "" if flags == "null" else flags
    bad = [f for f in flags if f not in FLAG_NAMES]
    if bad:
        respond({"type": "error", "message": f"unknown flag(s): {''.join(bad)}",
                 "trace": ["valid flags: i m s x"], "transient": False})
        return
    bits = 0
    for f in flags:
        bits |= FLAG_NAMES[f]
    try:
        rx = re.compile(pattern, bits)
    except re.error as exc:
        respond({"type": "error", "message": f"pattern does not compile: {exc.msg}",
                 "trace": [pattern, " " * (exc.pos or 0) + "^"], "transient": False})
        return
    matches = list(rx.finditer(text))
    if not matches:
        respond({"type": "success", "content": "no match"})
        return
    out = []
    for i, m in enumerate(matches, 1):
        out.append(f"match {i} at {m.start()}-{m.end()}: {m.group(0)!r}")
        for name, val in (m.groupdict() or {f"{k}": v for k, v in enumerate(m.groups(), 1)}).items():
            out.append(f"  group {name}: {val!r}")
    respond({"type": "success", "content": "\n".join(out)})


if __name__ == "__main__":
    main()
