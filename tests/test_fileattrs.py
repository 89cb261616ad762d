"""What a file written in another's place keeps: the permissions the umask would take."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_the_umask_is_read_once_at_start_up_never_set_from_a_thread() -> None:
    """Reading the umask by setting it is a race with every thread creating a file: it is
    read before any thread (and where the system tells it, without setting it at all)."""
    script = """
import os, threading
os.umask(0o027)
from jp_migrate.files import attrs as fileattrs
def refuse(*args):
    raise AssertionError("the umask was set after start-up")
os.umask = refuse
seen = []
thread = threading.Thread(target=lambda: seen.append(fileattrs.created_mode(0o666)))
thread.start()
thread.join()
print(oct(seen[0]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "0o640", done.stderr
