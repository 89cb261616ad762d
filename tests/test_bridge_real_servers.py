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


# ── RFD 058 against the reference server ─────────────────────────────────────


def test_resource_links_are_read_in_their_place(tmp_path: Path) -> None:
    """The server offers resources: each link is read through resources/read and shown as
    the resource, where it stood (links had been dropped, the text left empty of them)."""
    ws = everything_workspace(tmp_path, "get-resource-links")
    rc, out, err = bridge(ws, "get-resource-links", "--args", '{"count": 2}')
    assert rc == 0, err
    assert [b["type"] for b in out["content"]] == ["text", "resource", "resource"]
    uris = [b["resource"]["uri"] for b in out["content"][1:]]
    assert uris == ["demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"]
    assert "blob" in out["content"][1]["resource"] and "text" in out["content"][2]["resource"]
    assert "[binary resource demo://resource/dynamic/blob/1 (" in out["text"]
    assert "warning" not in err


def test_the_legacy_host_drops_links_naming_why(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "get-resource-links")
    rc, out, err = bridge(
        ws, "get-resource-links", "--args", '{"count": 1}', "--protocol", "legacy"
    )
    assert rc == 0 and [b["type"] for b in out["content"]] == ["text"], err
    assert "dropped: JP's legacy host drops resource links (RFD 058 keeps them)" in err


def test_an_unchanged_server_verified_against_itself_never_mismatches(tmp_path: Path) -> None:
    """The legacy host drops links and joins resources raw, the RFD 058 host keeps and
    formats them: named expected differences (every such case had been a mismatch)."""
    ws = everything_workspace(tmp_path, "get-resource-links", "echo")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        '{"arguments": {"count": 3}, "tool": "get-resource-links"}\n'
        '{"arguments": {"message": "hi"}, "tool": "echo"}\n',
        encoding="utf-8",
    )
    for tool, verdict in (("get-resource-links", "expected"), ("echo", "match")):
        proc = run_cli("verify", "--tool", tool, "-w", str(ws), "--cases", str(cases))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert proc.stdout.startswith(verdict), proc.stdout
    assert (
        "(mcp-resource-link-kept)"
        in run_cli(
            "verify", "--tool", "get-resource-links", "-w", str(ws), "--cases", str(cases)
        ).stdout
    )


def test_elicitation_answered_from_answers(tmp_path: Path) -> None:
    """The bridge declares elicitation, so the server offers its asking tool and asks."""
    ws = everything_workspace(tmp_path, "trigger-elicitation-request")
    answers = json.dumps({"name": "Ada Lovelace", "check": True, "integer": 7})
    rc, out, err = bridge(ws, "trigger-elicitation-request", "--answers", answers, "--no-input")
    assert rc == 0, err
    assert "- Name: Ada Lovelace\n- Agreed to terms: true" in out["text"]
    assert "- Favorite Integer: 7" in out["text"]


def test_elicitation_refused_with_no_input(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "trigger-elicitation-request")
    rc, _, err = bridge(ws, "trigger-elicitation-request", "--no-input")
    _one_line(rc, err, "question 'name' (", "Your full, legal name", "has no answer and no default")


def test_an_elicitation_answer_out_of_range_is_refused(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "trigger-elicitation-request")
    answers = json.dumps({"name": "Ada", "integer": 500})
    rc, _, err = bridge(ws, "trigger-elicitation-request", "--answers", answers, "--no-input")
    _one_line(rc, err, "question 'integer' (", "the answer 500 does not fit", "100")


def test_the_legacy_host_is_not_offered_the_asking_tool(tmp_path: Path) -> None:
    """JP's legacy host declares no elicitation: the server does not offer its asking tool."""
    ws = everything_workspace(tmp_path, "trigger-elicitation-request")
    rc, _, err = bridge(ws, "trigger-elicitation-request", "--protocol", "legacy")
    _one_line(rc, err, "has no tool 'trigger-elicitation-request'")


def test_url_elicitation_answered_non_interactively(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "trigger-url-elicitation")
    args = json.dumps({"url": "https://example.com/consent"})
    for answer, said in (("true", "completed the URL elicitation"), ("false", "declined")):
        rc, out, err = bridge(
            ws, "trigger-url-elicitation", "--args", args, "--answers", f'{{"url": {answer}}}'
        )
        assert rc == 0 and said in out["text"], err


def test_sampling_is_not_declared_so_not_offered(tmp_path: Path) -> None:
    """No model in this runtime: the bridge declares no sampling, and the server offers its
    sampling tool only to a client that does."""
    ws = everything_workspace(tmp_path, "trigger-sampling-request")
    rc, _, err = bridge(ws, "trigger-sampling-request", "--args", '{"prompt": "hi"}')
    _one_line(rc, err, "has no tool 'trigger-sampling-request'")


def test_long_running_tool_with_progress(tmp_path: Path) -> None:
    ws = everything_workspace(tmp_path, "trigger-long-running-operation")
    args = json.dumps({"duration": 1, "steps": 3})
    rc, out, err = bridge(ws, "trigger-long-running-operation", "--args", args)
    assert rc == 0, err
    assert "Long running operation completed" in out["text"]
    assert err == ""  # no progress bar when stderr is not a terminal


def test_a_call_that_outlives_its_timeout(tmp_path: Path) -> None:
    from bridge_support import live_processes

    marker = str(tmp_path / "everything-marker")
    ws = everything_workspace(tmp_path, "trigger-long-running-operation")
    config = ws / ".jp" / "config.toml"
    config.write_text(config.read_text().replace('"stdio"]', f'"stdio", "{marker}"]'))
    args = json.dumps({"duration": 60, "steps": 2})
    rc, _, err = bridge(ws, "trigger-long-running-operation", "--args", args, "--timeout", "3")
    _one_line(rc, err, "tools/call 'trigger-long-running-operation' timed out after 3s")
    assert live_processes(marker) == []


def test_a_json_rpc_error_asking_for_a_url_first(tmp_path: Path) -> None:
    """The URL-elicitation-required error (JSON-RPC -32042) names URLs to open first: each
    is a yes/no question; "yes" and the call is made again, "no" ends the run in one line
    (it had ended every such call as "failed ... (-32042)")."""
    ws = everything_workspace(tmp_path, "trigger-url-elicitation")
    args = json.dumps({"url": "https://example.com/x", "errorPath": True})
    tool = "trigger-url-elicitation"
    rc, out, err = bridge(ws, tool, "--args", args, "--answers", '{"url": true}')
    assert rc == 0 and "completed the URL elicitation flow" in out["text"], err
    rc, _, err = bridge(ws, tool, "--args", args, "--answers", '{"url": false}')
    _one_line(rc, err, "needs the URL elicitation 'url' completed first, and it was declined")
    rc, _, err = bridge(ws, tool, "--args", args, "--no-input")
    _one_line(rc, err, "question 'url' (", "Open https://modelcontextprotocol.io", "no answer")
