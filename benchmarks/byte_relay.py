"""The cheapest relay there is, for `bench_adapt.py --mcp --floor`: COMMAND runs behind it,
its stdin and stdout copied byte for byte by two threads, nothing parsed.

    python benchmarks/byte_relay.py COMMAND [ARGS...]
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading


def main(command: list[str]) -> int:
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert server.stdin is not None and server.stdout is not None
    to_server, from_server = server.stdin, server.stdout

    def up() -> None:
        while data := os.read(0, 65536):
            os.write(to_server.fileno(), data)
        to_server.close()

    threading.Thread(target=up, daemon=True).start()
    while data := os.read(from_server.fileno(), 65536):
        os.write(1, data)
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
