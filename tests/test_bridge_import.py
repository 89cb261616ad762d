"""`jp-migrate bridge import --mcp SERVER`: RFD D08's import, against the real servers."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

from bridge_support import WIRE_SERVER
from conftest import run_cli
from real_servers import everything_workspace, python_server, workspace


def _time_ws(root: Path) -> Path:
    return workspace(root, "time", python_server("mcp_server_time"), {})


def test_every_tool_of_the_time_server_is_imported_and_runs(tmp_path: Path) -> None:
    ws = _time_ws(tmp_path)
    proc = run_cli("bridge", "import", "--mcp", "time", "-w", str(ws))
    assert proc.returncode == 0, proc.stderr
    tools = ws / ".jp" / "mcp" / "tools"
    assert sorted(p.name for p in tools.iterdir()) == ["convert_time.toml", "get_current_time.toml"]
    config = tomllib.loads((tools / "get_current_time.toml").read_text(encoding="utf-8"))
    entry = config["conversation"]["tools"]["get_current_time"]
    assert entry["source"] == "mcp.time.get_current_time"
    assert entry["summary"] == "Get current time in a specific timezone"
    assert entry["parameters"] == {
        "timezone": {
            "type": "string",
            "required": True,
            "summary": "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). "
            "Use 'Etc/UTC' as local timezone if no timezone provided by the user.",
        }
    }
    # the imported config is one the bridge (and JP) runs
    run = run_cli(
        "bridge", "run", "get_current_time", "-w", str(ws), "--json",
        "--args", '{"timezone": "Asia/Tokyo"}',
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(json.loads(run.stdout)["text"])["timezone"] == "Asia/Tokyo"


def test_an_existing_file_is_kept_without_force(tmp_path: Path) -> None:
    ws = _time_ws(tmp_path)
    tools = ws / ".jp" / "mcp" / "tools"
    tools.mkdir(parents=True)
    mine = tools / "convert_time.toml"
    mine.write_text("# mine\n", encoding="utf-8")
    proc = run_cli("bridge", "import", "--mcp", "time", "--tool", "convert_time", "-w", str(ws))
    assert proc.returncode == 2
    assert proc.stderr == f"error: {mine}: exists; --force to overwrite it\n"
    assert mine.read_text(encoding="utf-8") == "# mine\n"
    assert not (tools / "get_current_time.toml").exists()  # --tool: that tool only
    forced = run_cli(
        "bridge", "import", "--mcp", "time", "--tool", "convert_time", "--force", "-w", str(ws)
    )
    assert forced.returncode == 0, forced.stderr
    assert 'source = "mcp.time.convert_time"' in mine.read_text(encoding="utf-8")
    assert [p.name for p in tools.iterdir()] == ["convert_time.toml"]  # no temporary left


def test_a_symlink_is_refused_even_with_force_never_written_through(tmp_path: Path) -> None:
    ws = _time_ws(tmp_path / "ws")
    outside = tmp_path / "outside.toml"
    outside.write_text("# not the workspace's\n", encoding="utf-8")
    tools = ws / ".jp" / "mcp" / "tools"
    tools.mkdir(parents=True)
    (tools / "convert_time.toml").symlink_to(outside)
    proc = run_cli(
        "bridge", "import", "--mcp", "time", "--tool", "convert_time", "--force", "-w", str(ws)
    )
    assert proc.returncode == 2
    assert "convert_time.toml: a symlink" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert outside.read_text(encoding="utf-8") == "# not the workspace's\n"
    assert (tools / "convert_time.toml").is_symlink()


def test_a_linked_tools_directory_is_refused(tmp_path: Path) -> None:
    ws = _time_ws(tmp_path / "ws")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws / ".jp" / "mcp").mkdir(parents=True)
    (ws / ".jp" / "mcp" / "tools").symlink_to(elsewhere, target_is_directory=True)
    proc = run_cli("bridge", "import", "--mcp", "time", "-w", str(ws))
    assert proc.returncode == 2 and "tools: a symlink" in proc.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_tool_the_server_does_not_offer_is_named(tmp_path: Path) -> None:
    ws = _time_ws(tmp_path)
    proc = run_cli("bridge", "import", "--mcp", "time", "--tool", "nope", "-w", str(ws))
    assert proc.returncode == 2
    assert "has no tool 'nope' (it offers: convert_time, get_current_time)" in proc.stderr
    assert not (ws / ".jp" / "mcp" / "tools").exists()


def test_a_server_that_is_not_configured_is_named(tmp_path: Path) -> None:
    ws = _time_ws(tmp_path)
    proc = run_cli("bridge", "import", "--mcp", "clock", "-w", str(ws))
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "no MCP server [providers.mcp.clock] configured (known: time)" in proc.stderr


def test_the_reference_server_tools_with_defaults_and_enums(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path)
    proc = run_cli("bridge", "import", "--mcp", "everything", "--tool", "get-annotated-message",
                   "-w", str(ws))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    path = ws / ".jp" / "mcp" / "tools" / "get-annotated-message.toml"
    entry = tomllib.loads(path.read_text(encoding="utf-8"))["conversation"]["tools"][
        "get-annotated-message"
    ]
    assert entry["source"] == "mcp.everything.get-annotated-message"
    message_type = entry["parameters"]["messageType"]
    assert message_type["enum"] == ["error", "success", "debug"]
    assert message_type["required"] is True
    run = run_cli(
        "bridge", "run", "get-annotated-message", "-w", str(ws), "--json",
        "--args", '{"messageType": "success"}',
    )  # fmt: skip
    assert run.returncode == 0, run.stderr


NAMES = json.dumps(
    [
        {"name": n, "description": "d", "inputSchema": {"type": "object"}}
        for n in ("../../escape", "..", "...", ".hidden", "-rf", "fine.tool")
    ]
    + [
        {
            "name": "nulls",
            "description": "d",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "object", "default": {"x": None}},
                    "b": {"type": "array", "enum": [[1, None], [2]]},
                    "c": {"type": "string", "default": "kept"},
                },
            },
        }
    ]
)


def test_a_tool_name_that_is_no_file_name_is_refused_and_nothing_escapes(tmp_path: Path) -> None:
    import sys

    script = tmp_path / "names.py"
    script.write_text(WIRE_SERVER, encoding="utf-8")
    ws = workspace(tmp_path / "ws", "n", [sys.executable, str(script), "{}", NAMES], {})
    proc = run_cli("bridge", "import", "--mcp", "n", "-w", str(ws), "--timeout", "30")
    assert proc.returncode == 2
    errors = proc.stderr.splitlines()
    assert len(errors) == 5 and all("not a name a file can have" in e for e in errors), errors
    assert "Traceback" not in proc.stderr
    tools = ws / ".jp" / "mcp" / "tools"
    assert sorted(p.name for p in tools.iterdir()) == ["fine.tool.toml", "nulls.toml"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["names.py", "ws"]
    # A new file's mode is the umask's default, not 0600.
    umask = os.umask(0o022)
    os.umask(umask)
    assert (tools / "fine.tool.toml").stat().st_mode & 0o777 == 0o666 & ~umask
    # TOML has no null: a default or enum holding one is left to the server's schema.
    nulls = tomllib.loads((tools / "nulls.toml").read_text(encoding="utf-8"))
    parameters = nulls["conversation"]["tools"]["nulls"]["parameters"]
    assert "default" not in parameters["a"] and "enum" not in parameters["b"]
    assert parameters["c"]["default"] == "kept"
