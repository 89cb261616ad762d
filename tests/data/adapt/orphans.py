"""Leaves `count` processes that detach themselves and end at once (each comes to the adapter,
a subreaper, as an orphan), then waits until none of the adapter's children is a zombie
(up to 30 s) and prints how many still were: the adapter reaps what ends on its own."""

import os
import sys
import time


def zombies(parent: int) -> int:
    count = 0
    for listing in os.listdir(f"/proc/{parent}/task"):
        with open(f"/proc/{parent}/task/{listing}/children") as children:
            for pid in children.read().split():
                try:
                    with open(f"/proc/{pid}/stat") as stat:
                        count += stat.read().rsplit(")", 1)[1].split()[0] == "Z"
                except OSError:
                    continue
    return count


def orphans(count: int) -> None:
    for _ in range(count):
        if os.fork() == 0:  # a child that leaves a grandchild and exits: the grandchild is orphaned
            if os.fork() == 0:
                os.setsid()
                os._exit(0)
            os._exit(0)
        os.wait()


def left(count: int) -> str:
    """Leave `count` orphans, wait for the adapter (our parent) to reap them: what is left."""
    parent = os.getppid()
    orphans(count)
    deadline = time.monotonic() + 30
    while zombies(parent) and time.monotonic() < deadline:
        time.sleep(0.05)
    return f"zombies left: {zombies(parent)}"


if __name__ == "__main__":
    print(left(int(sys.argv[1])))
