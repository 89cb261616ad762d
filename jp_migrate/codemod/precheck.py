"""Cheap checks on the raw text, before paying for a parse (pyupgrade's trick).

`may_contain_outcome` must never say no to a file the transforms would act
on: every site needs an Outcome tag written as a string (`"success"`,
`'error'`, `type="needs_input"`, a JSON string holding one, its quotes escaped
or not), a dynamic `"type"` beside a legacy key or a `**` spread in the same
braces, or a read of a legacy Outcome's `"type"`. Tags spelt with escape sequences or split by implicit
concatenation are not detected (and are documented as such).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

# A tag right after an opening quote or a quoted JSON key: covers "x", 'x', """x""", r"x", b"x",
# and a JSON string's escaped quotes (`"{\"type\": \"success\"}"`: the closing quote follows `\`).
_TAG = re.compile(r"""(?:["'](?:success|error|needs_input)\\*["'])|needs_input""")
# A `"type"` key (or `type=`/`["type"]`) with a non-constant value is still a site (dynamic type).
_TYPE_KEY = re.compile(r"""["']type\\*["']|\btype\s*=""")
_LEGACY_KEY = re.compile(
    r"""["'](?:content|message|trace|transient|question)\\*["']|\b(?:content|message|trace|transient|question)\s*="""
)
# `{"type": kind, **payload}`: the spread may bring every legacy key (reported as a dynamic type).
_TYPE_SPREAD = re.compile(r"""["']type\\*["']\s*:[^{}]*\*\*|\*\*[^{}]*["']type\\*["']\s*:""")

_SKIP = re.compile(r"#\s*jp-migrate:\s*skip\b")


def read_source(path: Path) -> tuple[str, str]:
    """The text and its encoding, as Python reads source (PEP 263 cookie, BOM); newlines kept.
    A FIFO or a device is refused (an OSError), never waited on."""
    from jp_migrate.files.edit import read_bounded

    return decode_source(read_bounded(path))


def decode_source(data: bytes) -> tuple[str, str]:
    """`read_source` of bytes already read."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown encoding in the cookie
        raise UnicodeDecodeError("utf-8", data, 0, 1, str(exc)) from None
    return data.decode(encoding), encoding


def may_contain_outcome(source: str) -> bool:
    if _TAG.search(source):
        return True
    if _TYPE_KEY.search(source) and _LEGACY_KEY.search(source):
        return True
    return bool(_TYPE_SPREAD.search(source))


def skip_lines(source: str) -> frozenset[int]:
    """1-based numbers of the lines carrying a `# jp-migrate: skip` comment (a comment
    token: the words inside a string, say an Outcome's content, are no marker)."""
    if "jp-migrate" not in source:
        return frozenset()
    try:
        return frozenset(
            token.start[0]
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT and _SKIP.search(token.string)
        )
    except (tokenize.TokenError, SyntaxError):  # libcst took it, tokenize did not: by line
        return frozenset(
            n for n, line in enumerate(source.splitlines(), start=1) if _SKIP.search(line)
        )


def file_is_skipped(source: str) -> bool:
    """`# jp-migrate: skip` in the file's leading comment block (shebang, encoding, licence…)."""
    if "jp-migrate" not in source:
        return False
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("#"):
            return False
        if _SKIP.search(stripped):
            return True
    return False
