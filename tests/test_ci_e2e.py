"""`jp-migrate check` end to end through the real CLI process, on real stores and tool sources."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from ci_support import empty_workspace, legacy_workspace
from conftest import run_cli


def test_exit_0_when_nothing_would_change(tmp_path: Path) -> None:
    ws = empty_workspace(tmp_path / "ws")
    result = run_cli("check", str(ws), "--no-tools", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "0 would change" in result.stdout


def test_exit_1_when_a_store_would_change_then_0_once_migrated(tmp_path: Path) -> None:
    legacy_workspace(tmp_path / "ws")
    result = run_cli(
        "check", "ws", "--no-tools", "--report", "json", "--report", "junit=r.xml", cwd=tmp_path
    )
    assert result.returncode == 1, result.stderr
    data = json.loads(result.stdout)
    assert data["totals"]["changed"] == 2
    root = ET.parse(tmp_path / "r.xml").getroot()
    assert (
        int(root.get("failures", "0")) == 2
        and int(root.get("tests", "0")) == data["totals"]["files"]
    )
    assert run_cli("conversations", "ws", cwd=tmp_path).returncode == 0
    again = run_cli("check", "ws", "--no-tools", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr


def test_exit_2_on_a_bad_config_naming_file_and_key(tmp_path: Path) -> None:
    ws = empty_workspace(tmp_path / "ws")
    (ws / "pyproject.toml").write_text('[tool.jp-migrate]\nencoding = "utf-16"\n')
    result = run_cli("check", "ws", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"error: {(ws / 'pyproject.toml').resolve()}: tool.jp-migrate.encoding: "
        "'utf-16' is not one of auto, base64, plain"
    )
    assert "Traceback" not in result.stderr


def test_exit_2_on_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("check", "ws", "--report", "pdf", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
