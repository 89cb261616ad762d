"""Text from outside (a tool's output, a server's stderr, a file name) made safe to print.

Control characters other than tab and newline (C0, DEL, C1) are shown as `\\xNN`:
printed as they are, they would drive the terminal (set its title or colours,
move the cursor). A newline inside a one-line message is shown too (`line`).
"""

from __future__ import annotations

_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if chr(c) not in "\t\n"}
_ONE_LINE = {**_CONTROLS, ord("\n"): "\\n"}


def visible(text: str) -> str:
    """`text` with its control characters shown, tabs and line breaks kept."""
    return text.translate(_CONTROLS)


def line(text: str) -> str:
    """`text` as one line: its control characters, line breaks included, shown."""
    return text.translate(_ONE_LINE)
