"""Names that are not UTF-8, shown escaped.

A directory name may be any bytes; Python holds the bytes that are not UTF-8
as surrogate escapes (`os.fsdecode`), which work as paths but cannot be
written as UTF-8 text. Paths keep them; everything shown (terminal lines,
reports) has them as `\\xNN` instead.
"""

from __future__ import annotations

from jp_migrate.contract.report import StoreFile


def escaped(text: str) -> str:
    """`text` with each byte that is not UTF-8 shown as `\\xNN` (the same text when it is)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no file name decodes to: shown as `\\udXXX`
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def shown_file(file: StoreFile) -> StoreFile:
    """`file` with every text it shows escaped (a copy only when one needed it)."""
    texts = {
        "path": file.path,
        "conversation": file.conversation,
        "message": file.message,
        "diff": file.diff,
    }
    update: dict[str, object] = {
        key: escaped(value)
        for key, value in texts.items()
        if value is not None and escaped(value) is not value
    }
    for key in ("problems", "warnings"):
        values: list[str] = getattr(file, key)
        if any(escaped(value) is not value for value in values):
            update[key] = [escaped(value) for value in values]
    return file.model_copy(update=update) if update else file
