"""Every writer goes through `jp_migrate.files`: a file changed between a command's read and
its write is refused, the change kept; and no module outside `jp_migrate/files/` opens a
file for writing or renames one itself (an AST scan of the package)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jp_migrate.adapt.config_cli import run_config
from jp_migrate.codemod.api import ToolsOptions, migrate_file
from jp_migrate.contract.report import Report
from jp_migrate.errors import JpMigrateError
from jp_migrate.files import edit
from jp_migrate.report import emit_reports

PACKAGE = Path(__file__).resolve().parents[1] / "jp_migrate"
FILES = PACKAGE / "files"
HAND_EDIT = b"# changed by hand meanwhile\n"


def _edited_meanwhile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Between every read and its replace, someone appends to the file."""
    original: Callable[..., None] = edit.replace

    def replace(snapshot: edit.Snapshot, data: bytes, *args: Any, **kwargs: Any) -> None:
        with open(snapshot.path, "ab") as handle:
            handle.write(HAND_EDIT)
        original(snapshot, data, *args, **kwargs)

    monkeypatch.setattr(edit, "replace", replace)


def test_adapt_refuses_a_config_changed_during_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".jp" / "config.toml"
    config.parent.mkdir()
    original = b'[conversation.tools.t]\ncommand = "python3 t.py"\n'
    config.write_bytes(original)
    _edited_meanwhile(monkeypatch)
    code = run_config(
        tmp_path,
        tools=["t"],
        servers=[],
        unmigratable=False,
        check=False,
        diff=False,
        undo=False,
        force=False,
        adapter="jp-migrate",
    )
    assert code == 2
    assert "config.toml: changed since it was read: not written" in capsys.readouterr().err
    assert config.read_bytes() == original + HAND_EDIT


def test_the_codemod_refuses_a_source_changed_during_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = tmp_path / "tool.py"
    original = b'import json\nprint(json.dumps({"type": "success", "content": "ok"}))\n'
    tool.write_bytes(original)
    _edited_meanwhile(monkeypatch)
    result = migrate_file(tool, ToolsOptions())
    assert result.status == "error" and result.message == "changed since it was read: not written"
    assert tool.read_bytes() == original + HAND_EDIT


def test_a_report_changed_during_the_run_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_bytes(b"{}\n")
    _edited_meanwhile(monkeypatch)
    with pytest.raises(JpMigrateError, match="changed since it was read"):
        emit_reports(Report(command="check"), [f"json={target}"])
    assert target.read_bytes() == b"{}\n" + HAND_EDIT


# ── no writer outside jp_migrate/files/ ──

WRITE_MODES = ("w", "a", "x", "+")
RENAMES = {("os", "replace"), ("os", "rename"), ("os", "renames"), ("shutil", "move")}
PATH_WRITES = {"write_text", "write_bytes"}


def _mode(call: ast.Call) -> str | None:
    """The mode an `open(...)` call gives, when it is a constant."""
    mode: ast.expr | None = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg == "mode":
            mode = keyword.value
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return mode.value
    return None


def writes_in(source: str) -> list[tuple[int, str]]:
    """(line, what) for every call in `source` that writes a file by itself."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Name) and function.id == "open":
            mode = _mode(node)
            if mode is not None and any(c in mode for c in WRITE_MODES):
                found.append((node.lineno, f"open(..., {mode!r})"))
        elif isinstance(function, ast.Attribute):
            owner = function.value.id if isinstance(function.value, ast.Name) else ""
            if (owner, function.attr) in RENAMES:
                found.append((node.lineno, f"{owner}.{function.attr}"))
            elif function.attr in PATH_WRITES:
                found.append((node.lineno, f".{function.attr}"))
            elif function.attr == "open" and owner not in ("os", "tarfile", "zipfile"):
                mode = _mode(ast.Call(function, [ast.Constant(""), *node.args], node.keywords))
                if mode is not None and any(c in mode for c in WRITE_MODES):
                    found.append((node.lineno, f".open({mode!r})"))
    return found


def test_the_scan_sees_each_way_of_writing() -> None:
    source = (
        "import os\nfrom pathlib import Path\n"
        "open(p, 'w')\nopen(p, mode='ab')\nopen(p)\nopen(p, 'rb')\n"
        "os.replace(a, b)\nos.rename(a, b)\nPath(p).write_text('x')\np.write_bytes(b'')\n"
        "Path(p).open('w')\nPath(p).open()\n"
    )
    assert [what for _, what in writes_in(source)] == [
        "open(..., 'w')",
        "open(..., 'ab')",
        "os.replace",
        "os.rename",
        ".write_text",
        ".write_bytes",
        ".open('w')",
    ]


def test_no_module_outside_files_writes_a_file_itself() -> None:
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {what}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.is_relative_to(FILES)
        for line, what in writes_in(path.read_text("utf-8"))
    ]
    assert offenders == [], "write through jp_migrate.files instead:\n" + "\n".join(offenders)
