"""`jp-migrate adapt -- CMD`: run a legacy local tool, print the envelope for the new host.

Kept free of click, pydantic, rich, libcst and the MCP SDK: it runs in front of
every call of the tool (the models load only for a question, see envelope.py).

Memory is bounded by the size limit (`--max-message`), however much the tool
prints: its stdout is held up to the limit, which is all an `Outcome` or an
envelope may take; past it, a raw output is passed through as its text block as it
comes (`output.RawText`), and a JSON document, which might be an `Outcome` only a
parse of all of it could tell, is counted and answered with an `isError` envelope
naming the limit. Its stderr goes on to adapt's own as it comes, and is held (for
the failure text) up to the limit, past it only its end.
"""

from __future__ import annotations

import os
import re
import sys

from jp_migrate.adapt import envelope
from jp_migrate.adapt.limits import MAX_MESSAGE
from jp_migrate.adapt.output import Output, RawText
from jp_migrate.adapt.run import CannotStart, Finished, run
from jp_migrate.visible import line

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on this path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

STDERR_TAIL = 4096  # of a stderr over the limit, the bytes the envelope keeps
_JSON_SPACE = re.compile(rb"[ \t\n\r]*")


def _say(message: str) -> None:
    sys.stderr.write(f"error: {line(message)}\n")


def _sha256() -> Any:
    import hashlib

    return hashlib.sha256()


class Stdout:
    """The tool's stdout as it comes: held up to `limit`; past it, a raw output is streamed
    as its envelope's text block, a JSON document only counted (`over`)."""

    def __init__(self, output: Output, limit: int) -> None:
        self.output = output
        self.limit = limit
        self.kept = bytearray()  # one buffer, grown in place: no list of chunks to join
        self.size = 0
        self.digest = _sha256() if output.provenance else None
        self.raw: RawText | None = None  # the streamed text block, once started
        self.over = False  # a JSON document past the limit: dropped

    def feed(self, data: bytes) -> None:
        self.size += len(data)
        if self.digest is not None:
            self.digest.update(data)
        if self.raw is not None:
            self.raw.feed(data)
        elif not self.over:
            self.kept += data
            if self.size > self.limit:
                self._past_limit()

    def _past_limit(self) -> None:
        held, self.kept = self.kept, bytearray()
        if envelope.may_be_document(_head(held)):
            self.over = True
            return
        self.raw = self.output.raw()
        self.raw.feed(held)

    def held(self) -> bytearray:
        """All of stdout (under the limit), handed over."""
        held, self.kept = self.kept, bytearray()
        return held

    def input_digest(self) -> str | None:
        return None if self.digest is None else self.digest.hexdigest()


def _head(held: bytearray, size: int = 4096) -> bytes:
    """The first `size` bytes of the output from its first one that is not JSON whitespace."""
    start = _JSON_SPACE.match(held).end()  # type: ignore[union-attr]  # always matches
    return bytes(held[start : start + size])


class Stderr:
    """The tool's stderr, passed on to ours as it comes (as the tool wrote it); held up to
    `limit`, past it only its last STDERR_TAIL bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.size = 0

    def feed(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(2, view) :]
            except BlockingIOError:
                continue
            except OSError:  # our stderr is gone: the envelope still holds what it can
                break
        self.size += len(data)
        self.kept += data
        if self.size > self.limit:
            del self.kept[: len(self.kept) - STDERR_TAIL]

    def text(self) -> str:
        return self.kept.decode("utf-8", "replace")


def adapt_local(
    command: Sequence[str],
    *,
    name: str | None,
    provenance: bool,
    timeout: float | None,
    limit: int = MAX_MESSAGE,
) -> int:
    """Run `command`, print its envelope on stdout; the exit status is the tool's."""
    tool = name or os.path.basename(command[0])
    output = Output(provenance)
    stdout, stderr = Stdout(output, limit), Stderr(limit)
    try:
        finished = run(command, timeout=timeout, on_stdout=stdout.feed, on_stderr=stderr.feed)
    except CannotStart as exc:
        _say(f"tool {tool!r}: cannot run {exc.reason}")
        adapted = envelope.not_run(
            tool, f"could not be started: {exc.reason}.", {"exit_code": exc.exit_code}
        )
        output.envelope(adapted, _sha256().hexdigest() if provenance else None)
        return exc.exit_code
    _emit(output, tool, stdout, stderr, finished, _unfinished(tool, finished, timeout))
    return finished.exit_code


def _emit(
    output: Output,
    tool: str,
    stdout: Stdout,
    stderr: Stderr,
    finished: Finished,
    failure: str | None,
) -> None:
    """The envelope for the run, written: the output stage (SPEC §2's mapping, `envelope`)."""
    details: dict[str, Any] = {"exit_code": finished.exit_code, "stderr": stderr.text()}
    if stderr.size > stderr.limit:
        details["stderr_bytes"] = stderr.size  # the envelope holds only its end
    digest = stdout.input_digest
    if stdout.raw is not None:
        _end_streamed(output, tool, stdout, stdout.raw, finished, failure, details)
        return
    if failure is not None:
        output.envelope(envelope.not_run(tool, failure, details), digest())
        return
    if stdout.over:
        _say(f"tool {tool!r}: its output ({stdout.size} bytes) is over the limit ({stdout.limit})")
        output.envelope(envelope.too_large(tool, stdout.size, stdout.limit, details), digest())
        return
    held = stdout.held()
    if finished.exit_code == 0 and _plainly_raw(held):
        text = output.raw()  # SPEC §2's raw row, written from the bytes: no copy of the text
        text.feed(held)
        output.end_raw(text, {}, None, digest())
    else:
        adapted = envelope.adapt(tool, held, bytes(stderr.kept), finished.exit_code, details)
        if adapted.rule == envelope.NOT_UTF8:
            _say(f"tool {tool!r}: its output is not valid UTF-8")
        output.envelope(adapted, digest())


def _plainly_raw(held: bytes) -> bool:
    """Output that can only be raw text: no JSON document that may be an `Outcome` or an
    envelope, and valid UTF-8."""
    if envelope.may_be_document(_head(held)):
        return False
    try:
        held.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _unfinished(tool: str, finished: Finished, timeout: float | None) -> str | None:
    """Why the tool did not finish (the text the model reads), said on stderr too; or None."""
    if finished.timed_out:
        assert timeout is not None
        _say(f"tool {tool!r}: timed out after {timeout:g}s; killed its process group")
        return f"timed out after {timeout:g}s."
    if finished.signal is not None:
        _say(f"tool {tool!r}: ended by {finished.signal}")
        return f"was ended by {finished.signal}."
    return None


def _end_streamed(
    output: Output,
    tool: str,
    stdout: Stdout,
    raw: RawText,
    finished: Finished,
    failure: str | None,
    details: dict[str, Any],
) -> None:
    """Close the envelope of a raw output streamed past the limit: as it came when the run
    succeeded; else an error, the failure named in a text block after it."""
    raw.flush()
    notice = None if failure is None else f"Tool '{tool}' {failure}"
    if notice is None and raw.bad is not None:
        _say(f"tool {tool!r}: its output is not valid UTF-8")
        notice = envelope.not_utf8(tool, *raw.bad)
    if notice is None and finished.exit_code != 0:
        notice = f"Tool '{tool}' execution failed (exit status {finished.exit_code})."
    if notice is not None:
        notice += (
            f" Its output ({stdout.size} bytes, more than the limit of {stdout.limit}) is above,"
            " as it came."
        )
    rest = {} if notice is None else envelope.streamed_failure(details)
    output.end_raw(raw, rest, notice, stdout.input_digest())
