"""Acceptance on the real corpus (a copy): migrate, minimal change, idempotence, check, verify, rollback."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import orjson
import pytest
from conftest import run_cli
from store_support import (
    CORPUS,
    MESSAGES_ERA,
    copy_tree,
    corpus_store,
    element_bytes,
    events,
    snapshot,
)

from jp_migrate.convert.encoding import decode_payload
from jp_migrate.convert.events import stored_payload_text

CORPUS_FILES = sorted(CORPUS.glob("conversations/*/events.json"))


@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.parent.name)
def test_orjson_pretty_is_jp_canonical_format_on_the_corpus(path: Path) -> None:
    raw = path.read_bytes()
    value = json.loads(raw)
    stdlib = (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    assert stdlib == raw  # SPEC §3: JP's files are Python's pretty format byte for byte
    assert orjson.dumps(value, option=orjson.OPT_INDENT_2) + b"\n" == raw


def test_corpus_migration_end_to_end(tmp_path: Path) -> None:
    store = corpus_store(tmp_path)
    before = {p: p.read_bytes() for p in store.glob("conversations/*/events.json")}
    mtimes = {p: p.stat().st_mtime_ns for p in before}

    first = run_cli("conversations", str(store))
    assert first.returncode == 0, first.stderr
    for path, raw in before.items():
        old, new = json.loads(raw), events(path)
        assert len(old) == len(new)
        old_parts, new_parts = element_bytes(raw), element_bytes(path.read_bytes())
        for index, (o, n) in enumerate(zip(old, new, strict=True)):
            if o.get("type") == "tool_call_response":
                assert isinstance(n["content"], list), f"{path}[{index}] not migrated"
                assert stored_payload_text(n) == decode_payload(o["content"])[0]
                assert {k: v for k, v in n.items() if k != "content"} == {
                    k: v for k, v in o.items() if k != "content"
                }
            else:
                assert new_parts[index] == old_parts[index], f"{path}[{index}] changed"
        if not any(e.get("type") == "tool_call_response" for e in old):
            assert path.read_bytes() == raw
            assert path.stat().st_mtime_ns == mtimes[path]  # an unchanged file is not rewritten
        # the migrated file is in JP's canonical format too
        assert (json.dumps(new, indent=2, ensure_ascii=False) + "\n").encode() == path.read_bytes()

    migrated = snapshot(store)
    second = run_cli("conversations", str(store))
    assert second.returncode == 0, second.stderr
    assert snapshot(store) == migrated  # the second run changes nothing, not even an mtime
    assert len(list((store / ".jp-migrate" / "runs").iterdir())) == 1  # and leaves no run record

    check = run_cli("conversations", str(store), "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    verify = run_cli("conversations", str(store), "--verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr

    rollback = run_cli("rollback", str(store))
    assert rollback.returncode == 0, rollback.stderr
    for path, raw in before.items():
        assert path.read_bytes() == raw
    assert run_cli("conversations", str(store), "--check").returncode == 1


def test_check_and_dry_run_write_nothing(tmp_path: Path) -> None:
    store = corpus_store(tmp_path)
    before = snapshot(store)
    check = run_cli("conversations", str(store), "--check")
    assert check.returncode == 1
    dry = run_cli("conversations", str(store), "--dry-run")
    assert dry.returncode == 0
    assert "would migrate" in dry.stdout
    assert snapshot(store) == before
    assert not (store / ".jp-migrate").exists()
    assert not (store / "locks").exists()


def test_diff_is_readable_one_hunk_per_changed_event(tmp_path: Path) -> None:
    store = corpus_store(tmp_path)
    result = run_cli("conversations", str(store), "--dry-run", "--diff")
    assert result.returncode == 0
    hunks = [line for line in result.stdout.splitlines() if line.startswith("@@ events[")]
    assert len(hunks) == 10  # the corpus holds 10 tool_call_responses
    assert '-  "content": "Check succeeded. No warnings or errors found.",' in result.stdout
    assert '+      "text": "Check succeeded. No warnings or errors found."' in result.stdout
    assert "more characters]" in result.stdout  # long payloads are cut


def test_json_report_follows_the_schema_and_is_deterministic(tmp_path: Path) -> None:
    from jp_migrate.contract.schemas import __path__ as schema_dirs  # the shipped JSON files

    schema = json.loads((Path(schema_dirs[0]) / "report.schema.json").read_text())
    store = corpus_store(tmp_path)
    one = run_cli("conversations", str(store), "--dry-run", "--report", "json", cwd=tmp_path)
    two = run_cli("conversations", str(store), "--dry-run", "--report", "json", cwd=tmp_path)
    assert one.stdout == two.stdout
    report = json.loads(one.stdout)
    jsonschema.validate(report, schema)
    assert report["command"] == "conversations"
    assert report.get("timings") is None  # deterministic: no durations unless --timings
    assert {f["status"] for f in report["store"]} == {"migrated", "unchanged"}
    written = run_cli(
        "conversations", str(store), "--report", f"json={tmp_path / 'r.json'}", cwd=tmp_path
    )
    assert written.returncode == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert all(
        f["sha256_before"] and f["sha256_after"] for f in data["store"] if f["status"] == "migrated"
    )


def test_messages_era_layout_is_reported_unsupported_never_misread(tmp_path: Path) -> None:
    store = copy_tree(MESSAGES_ERA, tmp_path / "old")
    before = snapshot(store)
    result = run_cli("conversations", str(store))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "17462040864" in lines[0] and "messages.json" in lines[0] and "unsupported" in lines[0]
    assert snapshot(store) == before
