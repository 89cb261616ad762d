"""The `jp-migrate` console script: `adapt -- CMD` starts without click, the rest is `cli.main`.

`adapt` sits in front of every call of a legacy tool, so what it imports is its
overhead; every other command line goes to the click group unchanged.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["adapt"]:
        from jp_migrate.adapt.fast import main as adapt

        code = adapt(argv[1:])
        if code is not None:
            sys.exit(code)
    from jp_migrate.cli import main as cli

    cli()
