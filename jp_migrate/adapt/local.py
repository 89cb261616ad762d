"""`jp-migrate adapt -- CMD`: run a legacy local tool, print the envelope for the new host.

Kept free of click, pydantic, rich, libcst and the MCP SDK: it runs in front of
every call of the tool (the models load only for a question, see envelope.py).
"""

from __future__ import annotations

import os
import sys

from jp_migrate.adapt import envelope
from jp_migrate.adapt.run import CannotStart, run
from jp_migrate.contract.jsontext import dumps_compact
from jp_migrate.visible import line

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on this path
if TYPE_CHECKING:
    from collections.abc import Sequence

ADAPTER_NAME = "jp-migrate adapt"
PROVENANCE_META = "computer.jp/provenance"


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def with_provenance(adapted: envelope.Adapted, stdout: bytes) -> str:
    """`adapted` with the provenance record under `_meta` (SPEC §4): digests of the tool's
    stdout and of the envelope as printed without the record, the adapter, the rule.
    An envelope the tool printed itself is left as it is (it is never changed)."""
    import json

    from jp_migrate import __version__

    if adapted.rule == envelope.PASSTHROUGH:
        return adapted.text
    document = json.loads(adapted.text)
    document.setdefault("_meta", {})[PROVENANCE_META] = {
        "adapter": {"name": ADAPTER_NAME, "version": __version__},
        "input": {"sha256": _sha256(stdout)},
        "output": {"sha256": _sha256(adapted.text.encode("utf-8"))},
        "rules": [adapted.rule],
    }
    return dumps_compact(document) + "\n"


def _say(message: str) -> None:
    sys.stderr.write(f"error: {line(message)}\n")


def adapt_local(
    command: Sequence[str], *, name: str | None, provenance: bool, timeout: float | None
) -> int:
    """Run `command`, print its envelope on stdout; the exit status is the tool's."""
    tool = name or os.path.basename(command[0])
    try:
        finished = run(command, timeout=timeout)
    except CannotStart as exc:
        _say(f"tool {tool!r}: cannot run {exc.reason}")
        adapted = envelope.not_run(
            tool, f"could not be started: {exc.reason}.", {"exit_code": exc.exit_code}
        )
        _emit(adapted, b"", provenance)
        return exc.exit_code
    if finished.stderr:
        sys.stderr.buffer.write(finished.stderr)  # the tool's own stderr, as it wrote it
        sys.stderr.flush()
    details = {
        "exit_code": finished.exit_code,
        "stderr": finished.stderr.decode("utf-8", "replace"),
    }
    if finished.timed_out:
        _say(f"tool {tool!r}: timed out after {timeout:g}s; killed its process group")
        adapted = envelope.not_run(tool, f"timed out after {timeout:g}s.", details)
    elif finished.signal is not None:
        _say(f"tool {tool!r}: ended by {finished.signal}")
        adapted = envelope.not_run(tool, f"was ended by {finished.signal}.", details)
    else:
        adapted = envelope.adapt(tool, finished.stdout, finished.stderr, finished.exit_code)
        if adapted.rule == envelope.NOT_UTF8:
            _say(f"tool {tool!r}: its output is not valid UTF-8")
    _emit(adapted, finished.stdout, provenance)
    return finished.exit_code


def _emit(adapted: envelope.Adapted, stdout: bytes, provenance: bool) -> None:
    text = with_provenance(adapted, stdout) if provenance else adapted.text
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.flush()
