"""`jp-migrate adapt [--name N] [--provenance] [--timeout S] [--max-message SIZE] -- CMD…`
without click.

The local adapter runs in front of every call of a tool, so its start-up is the
adapter's cost: this reads exactly the command line above and hands anything
else (help, a usage error, `--mcp`, `--config`) to the click command, which
says the same things about it.
"""

from __future__ import annotations

import math

from jp_migrate.adapt.limits import MAX_MESSAGE, parse_size

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on this path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def parse(args: Sequence[str]) -> dict[str, Any] | None:
    """The options and the command, or None when the click command must read `args`."""
    options: dict[str, Any] = {
        "name": None,
        "provenance": False,
        "timeout": None,
        "limit": MAX_MESSAGE,
    }
    rest = list(args)
    while rest:
        word = rest.pop(0)
        if word == "--":
            if not rest:
                return None
            return {**options, "command": rest}
        if word == "--provenance":
            options["provenance"] = True
        elif word in ("--name", "--timeout", "--max-message") and rest:
            value = rest.pop(0)
            if word == "--name":
                options["name"] = value
            elif word == "--max-message":
                options["limit"] = parse_size(value)
                if options["limit"] is None:
                    return None
            else:
                try:
                    seconds = float(value)
                except ValueError:
                    return None
                if not math.isfinite(seconds) or seconds <= 0:
                    return None
                options["timeout"] = seconds
        else:
            return None
    return None


def main(args: Sequence[str]) -> int | None:
    """Run the local adapter for `args` (after `adapt`), or None: not a command line read here."""
    parsed = parse(args)
    if parsed is None:
        return None
    import sys

    from jp_migrate.adapt.local import adapt_local

    command = parsed.pop("command")
    try:
        return adapt_local(command, **parsed)
    except BrokenPipeError:  # the host stopped reading: nothing left to tell it
        return 1
    except OSError as exc:  # the envelope could not be written (a full disk, a closed stdout)
        sys.stderr.write(f"error: cannot write the envelope: {exc.strerror or exc}\n")
        return 2
    except KeyboardInterrupt:  # before the tool ran or after it ended: nothing to pass on
        return 130
