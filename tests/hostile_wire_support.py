"""A hostile client of `adapt --mcp` (and the harness for `adapt -- CMD`), in plain Python.

Every process the adapter starts inherits an environment marker, so what it leaves
behind is found by reading /proc/*/environ; the adapter's peak memory is its VmHWM
(read from /proc while it runs).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

PY = sys.executable
HOSTILE = str(Path(__file__).parent / "data" / "adapt" / "hostile_server.py")
MARKER = "JP_MIGRATE_HOSTILE_MARKER"
WAIT = 60.0  # seconds for an awaited answer to arrive: it comes, or the test fails
MiB = 1 << 20

needs_proc = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")


class Marked:
    """An environment marker for one test's processes, and the search for its survivors."""

    def __init__(self) -> None:
        self.value = f"{MARKER}={uuid.uuid4().hex}".encode()
        self.started: list[subprocess.Popen[bytes]] = []  # killed if a test left them running

    def end(self) -> None:
        """After the test: what it left running is killed (with SIGKILL, as a host might);
        then nothing of its may be left."""
        for proc in self.started:
            proc.kill()
            proc.wait()
        self.assert_none_left()

    def env(self, **extra: str) -> dict[str, str]:
        name, _, value = self.value.decode().partition("=")
        return {**os.environ, name: value, **extra}

    def alive(self) -> list[int]:
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                environ = Path(f"/proc/{name}/environ").read_bytes()
                state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if self.value in environ.split(b"\0") and state != "Z":
                found.append(int(name))
        return found

    def assert_none_left(self, seconds: float = 15.0) -> None:
        deadline = time.monotonic() + seconds
        while (left := self.alive()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert left == [], [_cmdline(pid) for pid in left]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return f"{pid} (gone)"


def memory(pid: int, field: str = "VmHWM") -> int:
    """A process's resident memory from /proc (VmHWM: its peak so far), in bytes."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith(f"{field}:"):
            return int(row.split()[1]) * 1024
    raise AssertionError(f"no {field} for {pid}")


class Wire:
    """`adapt --mcp` in front of the hostile server, driven line by line by the test."""

    def __init__(
        self,
        marked: Marked,
        *adapt_args: str,
        server: list[str] | None = None,
        version: str = "2025-11-25",
    ) -> None:
        command = server or [PY, HOSTILE, "--version", version]
        self.proc = subprocess.Popen(
            [PY, "-m", "jp_migrate", "adapt", "--mcp", *adapt_args, "--", *command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=marked.env(),
            start_new_session=True,
        )
        marked.started.append(self.proc)
        self.answers: queue.Queue[bytes] = queue.Queue()
        self.err: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._errors = threading.Thread(target=self._read_stderr, daemon=True)
        self._errors.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.answers.put(line)

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.err.append(line)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, key: Any, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": key, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")

    def call(
        self, key: Any, name: str, arguments: dict[str, Any] | None = None, **extra: Any
    ) -> None:
        self.request(key, "tools/call", {"name": name, "arguments": arguments or {}, **extra})

    def recv(self, timeout: float = WAIT) -> dict[str, Any]:
        try:
            line = self.answers.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(
                f"no answer in {timeout}s; stderr: {b''.join(self.err)!r}"
            ) from None
        message: dict[str, Any] = json.loads(line)
        return message

    def quiet(self, seconds: float = 0.5) -> list[bytes]:
        """What else the adapter wrote within `seconds` (an answer owed once would be here)."""
        time.sleep(seconds)
        lines = []
        while not self.answers.empty():
            lines.append(self.answers.get())
        return lines

    def handshake(self, version: str = "2025-11-25") -> dict[str, Any]:
        params = {
            "protocolVersion": version,
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "hostile-client", "version": "1"},
        }
        self.request(0, "initialize", params)
        answer = self.recv()
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        return answer

    def peak(self) -> int:
        return memory(self.proc.pid)

    def close(self, timeout: float = WAIT) -> tuple[int, str]:
        """Close the client's side; the adapter's exit status and its stderr."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        finally:
            self.proc.kill()
            self.proc.wait()
        self._errors.join(timeout)
        return code, b"".join(self.err).decode("utf-8", "replace")

    def stderr(self) -> str:
        return b"".join(self.err).decode("utf-8", "replace")


def text_of(answer: dict[str, Any]) -> str:
    """The one text block of a `tools/call` result."""
    (block,) = answer["result"]["content"]
    text: str = block["text"]
    return text


# Runs a command and writes the peak resident memory of what it ran (ru_maxrss of the
# children it waited for, in KiB on Linux) to the file named first.
_MEASURED = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)
"""


def measured(
    command: list[str], marked: Marked, tmp: Path, *, timeout: float = 120
) -> tuple[subprocess.CompletedProcess[bytes], int]:
    """`command` run to its end (stdout and stderr captured) and its peak memory in bytes."""
    report = tmp / f"maxrss-{uuid.uuid4().hex}"
    done = subprocess.run(
        [PY, "-c", _MEASURED, str(report), *command],
        capture_output=True, env=marked.env(), timeout=timeout, check=False,
    )  # fmt: skip
    return done, int(report.read_text()) * 1024


def adapt_command(*args: str) -> list[str]:
    return [PY, "-m", "jp_migrate", "adapt", *args]


def printing_tool(size: int, *, start: bytes = b"", end: bytes = b"", code: int = 0,
                  fd: int = 1) -> list[str]:  # fmt: skip
    """A tool writing `start`, then `size` bytes of `a` in 1 MiB pieces (never holding them
    all), then `end`, on `fd`; exiting `code`."""
    program = (
        "import os, sys\n"
        "fd, size = int(sys.argv[1]), int(sys.argv[2])\n"
        "os.write(fd, bytes.fromhex(sys.argv[3]))\n"
        "piece = b'a' * (1 << 20)\n"
        "while size > 0:\n"
        "    size -= os.write(fd, piece[:size])\n"
        "os.write(fd, bytes.fromhex(sys.argv[4]))\n"
        "sys.exit(int(sys.argv[5]))\n"
    )
    return [PY, "-c", program, str(fd), str(size), start.hex(), end.hex(), str(code)]
