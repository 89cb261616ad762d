"""events.json with invalid UTF-8, BOM, UTF-16, lone surrogate escapes, NUL bytes."""
import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import _hostile_common as H  # noqa: E402


def build(root: pathlib.Path, outside: pathlib.Path) -> dict:
    H.victims(outside)
    convs = H.workspace(root)
    ctl = H.control(convs)
    ev = H.real_bytes(H.LEGACY_A)
    meta = H.real_bytes(H.LEGACY_A, "metadata.json")
    marker = b'"type": "chat_request",'
    i = ev.index(marker) + len(marker)

    def conv(name, data):
        d = convs / name
        d.mkdir()
        H.write(d / "metadata.json", meta)
        H.write(d / "events.json", data)
        return name

    n1 = conv("17700000160-invalid-utf8-in-string", ev[:i] + b'\n    "x_note": "caf\xe9 \xff\xfe \xc3",' + ev[i:])
    n2 = conv("17700000161-utf8-bom", b"\xef\xbb\xbf" + ev)
    n3 = conv("17700000162-utf16le", ev.decode("utf-8").encode("utf-16"))
    n4 = conv("17700000163-lone-surrogate-escape", ev[:i] + b'\n    "x_note": "\ud800 and \udfff",' + ev[i:])
    n5 = conv("17700000164-nul-bytes", ev[:i] + b"\x00\x00" + ev[i:])
    n6 = conv("17700000165-latin1-whole-file", ev.decode("utf-8").encode("latin-1", "replace"))
    # a legacy tool_call_response whose content is base64 of invalid UTF-8 (decodes, but not to text)
    evs = H.legacy_events(H.LEGACY_A)
    for e in evs:
        if e.get("type") == "tool_call_response":
            e["content"] = "//79/w=="  # base64 of ff fe fd ff
            break
    n7 = conv("17700000166-b64-of-invalid-utf8", H.canon(evs))
    return {
        "description": "Real legacy events.json variants: raw invalid UTF-8 bytes inside a string, a UTF-8 BOM, "
                       "the whole file in UTF-16, JSON escapes of lone surrogates (valid JSON, but not "
                       "encodable to UTF-8 on write!), NUL bytes between tokens, a Latin-1 file, and a "
                       "tool_call_response whose base64 decodes to non-UTF-8 (per spec: kept as plain text). "
                       "Undecodable files are reported one line each, never a UnicodeDecodeError/"
                       "UnicodeEncodeError traceback, and never half-written. The last may be migrated "
                       "(payload kept as-is) or reported.",
        "expect_migrated": [ctl],
        "expect_untouched": [n1, n3, n5],
    }
