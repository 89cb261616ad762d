"""Options of `jp-migrate conversations`: encodings, archives, shards, jobs, the API, splicing."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from store_support import (
    b64,
    element_bytes,
    generated_store,
    legacy_events,
    responses,
    snapshot,
    write_conversation,
)

from jp_migrate.errors import JpMigrateError
from jp_migrate.store import StoreOptions, migrate_stores, workers
from jp_migrate.store.api import run_stores
from jp_migrate.store.discover import in_shard
from jp_migrate.store.pipeline import Task

URLSAFE = base64.urlsafe_b64encode(b"what?? ok>>").decode()  # holds `_` and `-`


def _one(root: Path, content: str) -> Path:
    events = legacy_events()
    events[2]["content"] = content
    return write_conversation(root, "17000000001-a", events)


@pytest.mark.parametrize(
    ("source", "encoding", "stored"),
    [
        (b64("hé"), "auto", b64("hé")),
        (URLSAFE, "auto", b64("what?? ok>>")),
        ("plain ✓", "auto", "plain ✓"),
        ("plain ✓", "base64", b64("plain ✓")),
        (b64("hé"), "plain", "hé"),
    ],
)
def test_payload_encoding(tmp_path: Path, source: str, encoding: str, stored: str) -> None:
    path = _one(tmp_path / "s", source)
    result = run_cli("conversations", str(tmp_path / "s"), "--encoding", encoding)
    assert result.returncode == 0, result.stderr
    assert responses(path)[0]["content"] == [{"type": "text", "text": stored}]


@pytest.mark.parametrize("mode", ["--dry-run", "--check"])
def test_urlsafe_repairs_are_reported(tmp_path: Path, mode: str) -> None:
    _one(tmp_path / "s", URLSAFE)
    result = run_cli("conversations", str(tmp_path / "s"), mode, "--report", "json")
    report = json.loads(result.stdout)
    (file,) = report["store"]
    assert file["repairs"] == [
        {"event_index": 2, "event_id": "call_1", "field": "content", "kind": "urlsafe-base64"}
    ]
    assert report["totals"]["repairs"] == 1


def test_check_reports_the_same_files_and_rules_as_a_dry_run(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    write_conversation(root, "17000000002-b", legacy_events(text="ok", encode=False))
    write_conversation(root, "17000000003-none", legacy_events()[:2])
    reports = {}
    for mode in ("--dry-run", "--check"):
        result = run_cli("conversations", str(root), mode, "--report", "json")
        reports[mode] = [
            (f["conversation"], f["status"], f["events_migrated"], f["rules"])
            for f in json.loads(result.stdout)["store"]
        ]
    assert reports["--check"] == reports["--dry-run"]
    assert [r[3] for r in reports["--check"]] == [["store-faithful-text"]] * 2 + [[]]


def test_archived_conversations_are_included_unless_excluded(tmp_path: Path) -> None:
    root = tmp_path / "s"
    live = write_conversation(root, "17000000001-live", legacy_events())
    archived = write_conversation(root, "17000000002-old", legacy_events(), archived=True)
    before = archived.read_bytes()
    assert run_cli("conversations", str(root), "--exclude-archived").returncode == 0
    assert isinstance(responses(live)[0]["content"], list)
    assert archived.read_bytes() == before
    assert run_cli("conversations", str(root)).returncode == 0
    assert isinstance(responses(archived)[0]["content"], list)


def test_conversations_jp_set_aside_in_its_trash_are_left_alone(tmp_path: Path) -> None:
    """JP's sanitizer moves a conversation that fails its checks to `conversations/.trash/`."""
    root = tmp_path / "s"
    live = write_conversation(root, "17000000001-live", legacy_events())
    trashed = root / "conversations" / ".trash" / "17000000003-bad" / "events.json"
    trashed.parent.mkdir(parents=True)
    trashed.write_text(json.dumps(legacy_events(), indent=2) + "\n", "utf-8")  # no metadata.json
    before = trashed.read_bytes()
    result = run_cli("conversations", str(root), "--report", "json")
    assert result.returncode == 0, result.stderr
    assert [f["path"] for f in json.loads(result.stdout)["store"]] == [str(live)]
    assert trashed.read_bytes() == before


def test_path_kinds_workspace_root_and_one_conversation(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    a = write_conversation(workspace / ".jp", "17000000001-a", legacy_events())
    b = write_conversation(workspace / ".jp", "17000000002-b", legacy_events())
    one = run_cli("conversations", str(b.parent))  # one conversation directory
    assert one.returncode == 0, one.stderr
    assert isinstance(responses(b)[0]["content"], list) and isinstance(
        responses(a)[0]["content"], str
    )
    assert (
        workspace / ".jp" / ".jp-migrate"
    ).is_dir()  # backups at the storage root, not in conversations/
    assert run_cli("conversations", str(workspace)).returncode == 0  # a workspace
    assert isinstance(responses(a)[0]["content"], list)
    bad = run_cli("conversations", str(tmp_path))
    assert bad.returncode == 2 and "not a workspace" in bad.stderr


def test_shards_partition_the_store_stably(tmp_path: Path) -> None:
    store = generated_store(tmp_path, conversations=30, total_bytes=60_000)
    names = sorted(p.parent.name for p in store.glob("conversations/**/events.json"))
    shards = [
        {
            Path(f.path).parent.name
            for f in migrate_stores([store], StoreOptions(check=True, shard=f"{k}/3"))
        }
        for k in (1, 2, 3)
    ]
    assert sorted(n for s in shards for n in s) == names  # every conversation in exactly one shard
    assert all(shards)
    assert all(in_shard(n.split("-")[0], (k + 1, 3)) for k, s in enumerate(shards) for n in s)
    with pytest.raises(JpMigrateError):
        migrate_stores([store], StoreOptions(shard="4/3"))
    for shard in ("0/2", "²/3", "1/x"):
        bad = run_cli("conversations", str(store), "--shard", shard)
        assert bad.returncode == 2 and bad.stderr.startswith("error: --shard"), bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1


def test_jobs_give_the_same_bytes_as_one_process(tmp_path: Path) -> None:
    one = generated_store(tmp_path / "one", conversations=24, total_bytes=120_000, seed=3)
    two = generated_store(tmp_path / "two", conversations=24, total_bytes=120_000, seed=3)
    assert run_cli("conversations", str(one), "--no-backup").returncode == 0
    result = run_cli("conversations", str(two), "--no-backup", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    assert {k: v[0] for k, v in snapshot(one).items()} == {
        k: v[0] for k, v in snapshot(two).items()
    }


def test_jobs_share_the_work_and_report_each_conversation_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers take chunks of one list as they go: each conversation goes to exactly one
    worker, both work, every one is reported and recorded once, and the progress moves
    in steps up to the total."""
    store = generated_store(tmp_path / "s", conversations=120, total_bytes=600_000, seed=4)
    taken = tmp_path / "taken.txt"
    real = workers.commit_many

    def logged(tasks: Iterable[Task], *args: Any, **kwargs: Any) -> Any:
        def named() -> Iterator[Task]:
            for task in tasks:
                with taken.open("a") as log:  # one short O_APPEND write a line: never torn
                    log.write(f"{os.getpid()} {task.conversation.name}\n")
                yield task

        return real(named(), *args, **kwargs)

    monkeypatch.setattr(workers, "commit_many", logged)  # the workers are forked after this
    steps: list[tuple[int, int]] = []
    run = run_stores([store], StoreOptions(jobs=2), progress=lambda *step: steps.append(step))
    lines = [line.split() for line in taken.read_text().splitlines()]
    names = sorted(name for _, name in lines)
    assert len(names) == 120 and len(set(names)) == 120
    assert len({pid for pid, _ in lines}) == 2 and str(os.getpid()) not in dict(lines)
    assert sorted(f.conversation for f in run.files) == names
    assert {f.status for f in run.files} == {"migrated"}
    (record,) = run.runs
    assert len(json.loads((record / "manifest.json").read_text())["files"]) == 120
    assert steps == sorted(steps) and len(steps) > 1 and steps[-1] == (120, 120)


WORKERS_UNDER_THE_CLI = """
import sys
from pathlib import Path
from jp_migrate.cli import _on_termination
from jp_migrate.store import StoreOptions, migrate_stores
_on_termination()  # the CLI's SIGTERM handler, which forked workers inherit
for _ in range(20):
    migrate_stores([Path(sys.argv[1])], StoreOptions(check=True, jobs=2))
"""


def test_jobs_workers_end_without_a_traceback(tmp_path: Path) -> None:
    """The pool ends its workers with SIGTERM; under the CLI's handler a worker printed
    'Process ForkPoolWorker-1: Traceback … KeyboardInterrupt' in about 1 run in 4."""
    import subprocess
    import sys

    store = generated_store(tmp_path / "s", conversations=8, total_bytes=40_000, seed=5)
    done = subprocess.run(
        [sys.executable, "-c", WORKERS_UNDER_THE_CLI, str(store)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_api_returns_store_files_and_never_raises_for_bad_files(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    write_conversation(root, "17000000002-b", b"{")
    files = migrate_stores([root], StoreOptions(dry_run=True, diff=True))
    assert [f.status for f in files] == ["migrated", "error"]
    assert files[0].diff and files[0].diff.startswith("--- a/")
    assert "invalid JSON" in files[1].message
    assert not (root / ".jp-migrate").exists()
    (missing,) = migrate_stores([tmp_path / "missing"], StoreOptions())
    assert (missing.status, missing.message) == ("error", "no such file or directory")
    with pytest.raises(JpMigrateError):  # a usage error is still raised
        migrate_stores([root], StoreOptions(shard="3/2"))


def test_a_non_canonical_file_keeps_every_other_event_byte_for_byte(tmp_path: Path) -> None:
    root = tmp_path / "s"
    events = legacy_events()
    compact = (
        "[" + ",\n".join(json.dumps(e, separators=(",", ":")) for e in events) + "]"
    )  # not JP's format
    path = write_conversation(root, "17000000001-a", compact)
    before = element_bytes(path.read_bytes())
    assert run_cli("conversations", str(root)).returncode == 0
    after = element_bytes(path.read_bytes())
    assert [a for i, a in enumerate(after) if i != 2] == [b for i, b in enumerate(before) if i != 2]
    assert json.loads(after[2])["content"] == [{"type": "text", "text": b64("Check succeeded.")}]
    assert b"\n" not in after[2]  # written in the style of the event it replaces
    assert path.read_text().startswith("[{") and path.read_text().endswith("}]")


def test_unknown_events_and_fields_pass_through(tmp_path: Path) -> None:
    root = tmp_path / "s"
    events = legacy_events()
    events.insert(0, {"type": "future_event", "payload": {"x": [1, 2.5, None]}})
    events[3]["extra_field"] = {"kept": True}
    path = write_conversation(root, "17000000001-a", events)
    assert run_cli("conversations", str(root)).returncode == 0
    new = json.loads(path.read_bytes())
    assert new[0] == events[0]
    assert new[3]["extra_field"] == {"kept": True}


def test_check_with_diff_and_report_to_a_file(tmp_path: Path) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    out = tmp_path / "reports" / "r.md"
    result = run_cli("conversations", str(root), "--check", "--diff", "--report", f"markdown={out}")
    assert result.returncode == 1
    assert "@@ events[2] tool_call_response call_1 @@" in result.stdout
    assert out.read_text().strip()
    usage = run_cli("conversations", str(root), "--check", "--verify")
    assert usage.returncode == 2


def test_bench_store_runs_small(tmp_path: Path) -> None:
    from conftest import run_benchmark

    result = run_benchmark("bench_store.py", "--size", "0.01", "--json", "--dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert set(figures["ratios"]) == {"no-backup", "backup", "jobs2", "check"}
    assert set(figures["no_write_ratios"]) == {"no-backup", "backup", "jobs2", "check", "floor"}
    assert set(figures["rollback_ratios"]) == {"rollback", "rollback-jobs2"}
    assert figures["peak_rss"] > 0 and figures["big_largest"] > figures["largest"]


def test_the_store_baseline_dumps_back_into_each_file(tmp_path: Path) -> None:
    """The issue's baseline: json.load each events.json and json.dump it back (indent 2)."""
    from store_support import bench_module, generated_store

    root = generated_store(tmp_path, conversations=4, total_bytes=40_000)
    files = sorted(root.glob("conversations/**/events.json"))
    loaded = [json.loads(path.read_bytes()) for path in files]
    bench_module().baseline(root)
    for path, value in zip(files, loaded, strict=True):
        assert path.read_text("utf-8") == json.dumps(value, indent=2, ensure_ascii=False)


MODES = (0o664, 0o660, 0o600, 0o644, 0o666, 0o640)


@pytest.mark.parametrize("backup", [[], ["--no-backup"]], ids=["backup", "no-backup"])
def test_a_rewritten_file_keeps_its_permissions_and_owner(
    tmp_path: Path, backup: list[str]
) -> None:
    """Under umask 022 a group-writable events.json stays group-writable (and, as root, its owner).

    Without backups a replaced original's inode is reused for a later file: that one too.
    """
    root = tmp_path / "s"
    paths = [
        write_conversation(root, f"1700000000{i}-c", legacy_events(text="x" * 300))
        for i in range(len(MODES))
    ]
    owners = {}
    for i, (path, mode) in enumerate(zip(paths, MODES, strict=True)):
        path.chmod(mode)
        if os.geteuid() == 0:
            os.chown(path, 4000 + i, 5000 + i)
        owners[path] = (path.stat().st_uid, path.stat().st_gid)
    old = os.umask(0o022)
    try:
        result = run_cli("conversations", str(root), *backup)
        assert result.returncode == 0, result.stderr
        assert all(isinstance(responses(p)[0]["content"], list) for p in paths)
        assert [p.stat().st_mode & 0o777 for p in paths] == list(MODES)
        assert {p: (p.stat().st_uid, p.stat().st_gid) for p in paths} == owners
        down = (
            run_cli("rollback", str(root), "--downgrade")
            if backup
            else run_cli("rollback", str(root))
        )
        assert down.returncode == 0, down.stderr
        assert [p.stat().st_mode & 0o777 for p in paths] == list(MODES)
        assert {p: (p.stat().st_uid, p.stat().st_gid) for p in paths} == owners
    finally:
        os.umask(old)


def test_a_response_whose_type_is_written_with_an_escape_is_migrated(tmp_path: Path) -> None:
    """`"tool_call_respons\\u0065"` is "tool_call_response" to JSON (and to JP)."""
    root = tmp_path / "s"
    raw = json.dumps(legacy_events(), indent=2).replace(
        '"tool_call_response"', '"tool_call_respons\\u0065"'
    )
    path = write_conversation(root, "17000000001-a", raw)
    assert run_cli("conversations", str(root), "--check").returncode == 1
    assert run_cli("conversations", str(root)).returncode == 0
    assert responses(path)[0]["content"] == [{"type": "text", "text": b64("Check succeeded.")}]
    assert run_cli("conversations", str(root), "--check").returncode == 0


def test_diff_alone_shows_the_change_and_writes_nothing(tmp_path: Path) -> None:
    """As in ruff and `jp-migrate tools`: --diff never writes, and exits 1 when something
    would change (0 with --dry-run)."""
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    before = snapshot(tmp_path)
    assert run_cli("conversations", str(root), "--diff", "--dry-run").returncode == 0
    result = run_cli("conversations", str(root), "--diff")
    assert result.returncode == 1, result.stderr
    assert "@@ events[2] tool_call_response call_1 @@" in result.stdout
    assert "1 file: 1 would change (1 event), 0 unchanged, 0 errors, 0 skipped" in result.stdout
    assert "run recorded" not in result.stdout
    assert snapshot(tmp_path) == before
    assert not (root / ".jp-migrate").exists()


def test_the_summary_of_a_real_run_is_in_the_past_tense_and_the_undo_hint_last(
    tmp_path: Path,
) -> None:
    root = tmp_path / "s"
    write_conversation(root, "17000000001-a", legacy_events())
    result = run_cli("conversations", str(root))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert "1 file: 1 changed (1 event), 0 unchanged, 0 errors, 0 skipped" in lines
    assert lines[-1].startswith("run recorded in ")
    assert lines[-1].endswith(f"(undo: jp-migrate rollback {root})")
