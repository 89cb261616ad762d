"""What `adapt -- CMD` prints on stdout: one envelope line, written whole or streamed.

The output stage of the local adapter, in one place: an envelope decided once the
tool has ended (`Output.envelope`), or a raw output larger than the limit, passed
through as its text block while it comes (`Output.raw`, `RawText`) and closed
once the tool has ended. Either way provenance (SPEC §4) is added on request:
the digests of the tool's stdout and of the envelope as printed without the record.
"""

from __future__ import annotations

import json
import os

from jp_migrate.adapt import envelope
from jp_migrate.contract.jsontext import dumps_compact

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing on this path
if TYPE_CHECKING:
    from typing import Any

ADAPTER_NAME = "jp-migrate adapt"
PROVENANCE_META = "computer.jp/provenance"
PIECE = 1 << 16  # bytes of a raw output decoded and written at a time


def _sha256() -> Any:
    import hashlib

    return hashlib.sha256()


def provenance_record(rule: str, input_digest: str, output_digest: str) -> dict[str, Any]:
    from jp_migrate import __version__

    return {
        "adapter": {"name": ADAPTER_NAME, "version": __version__},
        "input": {"sha256": input_digest},
        "output": {"sha256": output_digest},
        "rules": [rule],
    }


class Output:
    """adapt's stdout (fd 1, written through); with `provenance`, the record for the tool's
    stdout whose sha256 is `input_digest` (given at the end)."""

    def __init__(self, provenance: bool) -> None:
        self.provenance = provenance
        self.digest: Any = None  # of what a streamed envelope wrote, for its provenance

    def write(self, text: str) -> None:
        for start in range(0, len(text), PIECE):  # a large envelope is never encoded whole
            data = text[start : start + PIECE].encode("utf-8")
            if self.digest is not None:
                self.digest.update(data)
            view = memoryview(data)
            while view:
                view = view[os.write(1, view) :]

    def envelope(self, adapted: envelope.Adapted, input_digest: str | None) -> None:
        """A whole envelope. An envelope the tool printed itself is left as it is: it gets no
        provenance record (it is never changed)."""
        if input_digest is None or adapted.rule == envelope.PASSTHROUGH:
            self.write(adapted.text)
            return
        document = json.loads(adapted.text)
        output = _sha256()
        output.update(adapted.text.encode("utf-8"))
        record = provenance_record(adapted.rule, input_digest, output.hexdigest())
        document.setdefault("_meta", {})[PROVENANCE_META] = record
        self.write(dumps_compact(document, end="\n"))

    def raw(self) -> RawText:
        """Start a raw output's envelope: its text block, fed as the output comes."""
        if self.provenance:
            self.digest = _sha256()
        self.write('{"content":[{"type":"text","text":"')
        return RawText(self)

    def end_raw(
        self, text: RawText, rest: dict[str, Any], notice: str | None, input_digest: str | None
    ) -> None:
        """Close a streamed envelope: `notice` (why it is an error) as a second text block,
        then the envelope's other members `rest` (isError, _meta), and the provenance record."""
        text.close()
        if notice is not None:
            self.write("," + dumps_compact({"type": "text", "text": notice}))
        self.write("]")
        close = ("," + dumps_compact(rest)[1:]) if rest else "}"
        if input_digest is None:
            self.write(close + "\n")
            return
        assert self.digest is not None
        digest = self.digest.copy()
        digest.update(f"{close}\n".encode())
        rule = envelope.RAW_OVER_LIMIT if rest else envelope.RAW
        record = provenance_record(rule, input_digest, digest.hexdigest())
        meta = {**rest.get("_meta", {}), PROVENANCE_META: record}
        self.write("," + dumps_compact({**rest, "_meta": meta})[1:] + "\n")


class RawText:
    """A raw output written as a JSON string's body while it comes: cut at UTF-8 character
    boundaries, each piece escaped as serde_json escapes it, a byte that is not UTF-8
    written as U+FFFD (the first one's offset kept, for the envelope to say so)."""

    def __init__(self, output: Output) -> None:
        self.output = output
        self.carry = b""  # the start of a character cut off at the end of the last piece
        self.offset = 0  # bytes written so far
        self.bad: tuple[int, str] | None = None  # the first byte that is not UTF-8, in hex

    def feed(self, data: bytes) -> None:
        for start in range(0, len(data), PIECE):
            self._piece(data[start : start + PIECE])

    def _piece(self, data: bytes) -> None:
        if self.carry:
            data, self.carry = self.carry + data, b""
        cut = _whole(data)
        if cut < len(data):
            data, self.carry = data[:cut], data[cut:]
        self._text(data)

    def _text(self, data: bytes) -> None:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            if self.bad is None:
                self.bad = (self.offset + exc.start, data[exc.start : exc.start + 1].hex())
            text = data.decode("utf-8", "replace")
        self.offset += len(data)
        self.output.write(json.dumps(text, ensure_ascii=False)[1:-1])

    def flush(self) -> None:
        """The output has ended: a character it never finished is written (as U+FFFD)."""
        if self.carry:
            carry, self.carry = self.carry, b""
            self._text(carry)

    def close(self) -> None:
        self.flush()
        self.output.write('"}')


def _whole(data: bytes) -> int:
    """Where `data` stops holding whole UTF-8 characters: before a last character cut off."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:  # not a continuation byte: the last character starts here
            length = 2 if byte >= 0xC0 else 1
            length = 3 if byte >= 0xE0 else length
            length = 4 if byte >= 0xF0 else length
            return len(data) - back if length > back else len(data)
    return len(data)
