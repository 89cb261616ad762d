"""The bridge against MCP servers nobody on the team wrote (tests/real_servers.py pins them).

The reference server `@modelcontextprotocol/server-everything` (npm, protocol
2025-11-25) and `mcp-server-time`, `mcp-server-git` (PyPI, protocol 2026-07-28).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from real_servers import everything_workspace, python_server, workspace


def bridge(ws: Path, tool: str, *extra: str) -> tuple[int, dict, str]:
    proc = run_cli("bridge", "run", tool, "-w", str(ws), "--json", *extra)
    return proc.returncode, (json.loads(proc.stdout) if proc.stdout.strip() else {}), proc.stderr


def _one_line(rc: int, err: str, *needles: str) -> None:
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


# ── the reference server ──────────────────────────────────────────────────────


def test_text(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "echo")
    rc, out, err = bridge(ws, "echo", "--args", '{"message": "Grüße, ünïcode"}')
    assert (rc, out["protocol"], out["text"]) == (0, "mcp", "Echo: Grüße, ünïcode"), err
    assert out["content"] == [{"type": "text", "text": "Echo: Grüße, ünïcode"}]


def test_image_is_kept_as_a_block_not_rendered(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "get-tiny-image")
    rc, out, err = bridge(ws, "get-tiny-image")
    assert rc == 0, err
    images = [b for b in out["content"] if b["type"] == "image"]
    assert len(images) == 1 and images[0]["mimeType"] == "image/png"
    assert images[0]["data"].startswith("iVBORw0KGgo")  # a PNG, base64
    assert "iVBOR" not in out["text"]  # kept, not shown to the model as text


@pytest.mark.parametrize(("kind", "field"), [("Text", "text"), ("Blob", "blob")])
def test_embedded_resources(tmp_path: Path, kind: str, field: str) -> None:
    ws = everything_workspace(tmp_path, "get-resource-reference")
    args = json.dumps({"resourceType": kind, "resourceId": 2})
    rc, out, err = bridge(ws, "get-resource-reference", "--args", args)
    assert rc == 0, err
    (resource,) = [b["resource"] for b in out["content"] if b["type"] == "resource"]
    assert resource["uri"] == f"demo://resource/dynamic/{kind.lower()}/2"
    assert field in resource
    if kind == "Blob":
        assert f"[binary resource {resource['uri']} (text/plain, " in out["text"]
    else:
        assert f"```\n{resource['text']}" in out["text"] or resource["text"] in out["text"]


def test_structured_content_is_read_from_its_text_item(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "get-structured-content")
    rc, out, err = bridge(ws, "get-structured-content", "--args", '{"location": "Chicago"}')
    assert rc == 0, err
    assert set(json.loads(out["text"])) == {"temperature", "conditions", "humidity"}
    assert "structuredContent not kept" in err


def test_a_tool_it_does_not_offer_is_named(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "no-such-tool")
    rc, _, err = bridge(ws, "no-such-tool")
    _one_line(rc, err, "MCP server 'everything': has no tool 'no-such-tool'", "echo")


def test_invalid_arguments_are_an_error_result(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "get-sum")
    rc, out, err = bridge(ws, "get-sum", "--args", '{"a": "one", "b": 2}')
    assert (rc, out["is_error"]) == (1, True), err
    assert "a" in out["text"] and "number" in out["text"].lower()


# ── the PyPI servers (2026-07-28) ─────────────────────────────────────────────


def test_time_server(tmp_path: Path) -> None:
    ws = workspace(tmp_path, "time", python_server("mcp_server_time"), {"now": "get_current_time"})
    rc, out, err = bridge(ws, "now", "--args", '{"timezone": "Europe/Amsterdam"}')
    assert rc == 0, err
    assert json.loads(out["text"])["timezone"] == "Europe/Amsterdam"


def test_time_server_error_result(tmp_path: Path) -> None:
    ws = workspace(tmp_path, "time", python_server("mcp_server_time"), {"now": "get_current_time"})
    rc, out, err = bridge(ws, "now", "--args", '{"timezone": "Mars/Olympus_Mons"}')
    assert (rc, out["is_error"]) == (1, True), err
    assert "Mars/Olympus_Mons" in out["text"]


def test_git_server(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("x\n", encoding="utf-8")
    ws = workspace(
        tmp_path / "ws", "git", python_server("mcp_server_git"), {"status": "git_status"}
    )
    rc, out, err = bridge(ws, "status", "--args", json.dumps({"repo_path": str(repo)}))
    assert rc == 0, err
    assert "new.txt" in out["text"]
