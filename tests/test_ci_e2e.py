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


DYNAMIC_TOOL = """\
import json
import sys


def result(kind, text):
    return {"type": kind, "content": text}


print(json.dumps(result(sys.argv[1], "hi")))
"""

BROKEN_TOOL = "def oops(:\n"


def test_every_report_of_a_real_run_agrees_and_validates(tmp_path: Path) -> None:
    import jsonschema
    from report_support import REPORT_SCHEMA, expected_from_json, junit_counts, validate_sarif

    ws = legacy_workspace(tmp_path / "ws")
    (ws / "tools").mkdir()
    (ws / "tools" / "dynamic.py").write_text(DYNAMIC_TOOL)
    (ws / "tools" / "broken.py").write_text(BROKEN_TOOL)
    args = ["check", "ws", "--diff"]
    for fmt in ("json", "markdown", "junit", "sarif"):
        args += ["--report", f"{fmt}=out/r.{fmt}"]
    result = run_cli(*args, cwd=tmp_path)
    assert result.returncode == 2  # the broken tool source is an input error
    assert result.stderr.startswith("error: ws/tools/broken.py: ")
    data = json.loads((tmp_path / "out/r.json").read_text())
    jsonschema.Draft202012Validator(REPORT_SCHEMA).validate(data)
    assert junit_counts((tmp_path / "out/r.junit").read_text()) == expected_from_json(data)
    sarif = validate_sarif((tmp_path / "out/r.sarif").read_text())
    located = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in sarif["runs"][0]["results"]
    }
    assert located == {
        ("codemod-dynamic-type", "ws/tools/dynamic.py"),
        ("tool-error", "ws/tools/broken.py"),
    }
    dynamic = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "codemod-dynamic-type")
    assert dynamic["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 6,
        "startColumn": 12,
    }
    # a second run gives the same bytes for the deterministic formats
    first = {fmt: (tmp_path / f"out/r.{fmt}").read_bytes() for fmt in ("json", "markdown")}
    assert run_cli(*args, cwd=tmp_path).returncode == 2
    assert {fmt: (tmp_path / f"out/r.{fmt}").read_bytes() for fmt in ("json", "markdown")} == first
