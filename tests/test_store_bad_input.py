"""Bad input, one case each: a one-line error naming the file and the reason, the rest of the
store migrated, the bad file untouched, exit code 2."""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from conftest import run_cli
from store_support import b64, legacy_events, responses, write_conversation

GOOD = "17000000001-good"
BAD = "17000000002-bad"


def _json(events: object) -> str:
    return json.dumps(events, indent=2, ensure_ascii=False) + "\n"


def truncated(root: Path) -> Path:
    return write_conversation(root, BAD, _json(legacy_events())[:150])


def invalid_json(root: Path) -> Path:
    return write_conversation(root, BAD, '[\n  {"type": "turn_start",}\n]\n')


def object_not_array(root: Path) -> Path:
    return write_conversation(root, BAD, _json({"events": legacy_events()}))


def content_wrong_type(root: Path) -> Path:
    events = legacy_events()
    events[2]["content"] = 42
    return write_conversation(root, BAD, events)


def invalid_base64(root: Path) -> Path:
    events = legacy_events()
    events.append(
        {
            "timestamp": "t",
            "type": "tool_call_response",
            "id": "img",
            "is_error": False,
            "content": [
                {"type": "resource", "resource": {"uri": "file:///x.png", "blob": "not base64!"}}
            ],
        }
    )
    return write_conversation(root, BAD, events)


def non_utf8(root: Path) -> Path:
    raw = _json(legacy_events()).encode().replace(b"run it", b"run \xff\xfe it")
    return write_conversation(root, BAD, raw)


def missing_metadata(root: Path) -> Path:
    return write_conversation(root, BAD, legacy_events(), metadata=False)


def symlink_outside_root(root: Path) -> Path:
    outside = root.parent / "outside"
    target = write_conversation(outside, BAD, legacy_events())
    (root / "conversations" / BAD).symlink_to(target.parent, target_is_directory=True)
    return target


def read_only(root: Path) -> Path:
    path = write_conversation(root, BAD, legacy_events())
    path.chmod(0o444)
    return path


def stray_jp_tmp(root: Path) -> Path:
    path = write_conversation(root, BAD, legacy_events())
    (path.parent / "events.json.tmp").write_text("[]\n")
    return path


def _with_response(raw_response: str) -> str:
    """The legacy events as compact JSON (not JP's format: spliced), plus one response written raw."""
    return json.dumps(legacy_events(), ensure_ascii=False)[:-1] + ", " + raw_response + "]"


def lone_surrogate(root: Path) -> Path:
    response = (
        '{"type": "tool_call_response", "id": "x1", "content": "bad \\ud800 x", "is_error": false}'
    )
    return write_conversation(root, BAD, _with_response(response))


def number_out_of_range(root: Path) -> Path:
    response = (
        '{"type": "tool_call_response", "id": "x1", "content": "aGVsbG8=", "is_error": false,'
        ' "metadata": {"n": 1e400}}'
    )
    return write_conversation(root, BAD, _with_response(response))


def nested_too_deeply(root: Path) -> Path:
    events = legacy_events()
    deep: object = "bottom"
    for _ in range(300):
        deep = {"a": deep}
    events[2]["metadata"] = deep
    return write_conversation(root, BAD, events)


def byte_order_mark(root: Path) -> Path:
    return write_conversation(root, BAD, b"\xef\xbb\xbf" + json.dumps(legacy_events()).encode())


CASES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "truncated events.json": (truncated, "invalid JSON"),
    "invalid JSON": (invalid_json, "invalid JSON"),
    "object instead of array": (object_not_array, "expected a JSON array"),
    "content of the wrong type": (content_wrong_type, "[2].content"),
    "invalid base64": (invalid_base64, "invalid base64"),
    "non-UTF-8 bytes": (non_utf8, "not valid UTF-8"),
    "missing metadata.json": (missing_metadata, "missing metadata.json"),
    "symlink outside the root": (symlink_outside_root, "outside the storage root"),
    "read-only file": (read_only, "read-only"),
    "stray events.json.tmp": (stray_jp_tmp, "events.json.tmp"),
    # JSON the standard library reads but JP's serde_json refuses (and a rewrite could not keep)
    "lone surrogate escape": (lone_surrogate, "lone UTF-16 surrogate"),
    "number beyond a double": (number_out_of_range, "1e400 is out of range"),
    "byte order mark": (byte_order_mark, "BOM"),
    "nested too deeply": (nested_too_deeply, "nested too deeply"),
}


@contextmanager
def held_by_jp(root: Path, conversation_id: str) -> Iterator[None]:
    """What a running `jp` does: an exclusive flock on <root>/locks/<id>.lock."""
    (root / "locks").mkdir(exist_ok=True)
    fd = os.open(root / "locks" / f"{conversation_id}.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        os.close(fd)


def _store(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "store"
    good = write_conversation(root, GOOD, legacy_events())
    return root, good


def _assert_one_error(result: object, bad_name: str, reason: str) -> None:
    stderr = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(stderr) == 1, result.stderr  # type: ignore[attr-defined]
    assert bad_name in stderr[0] and "events.json" in stderr[0]
    assert reason in stderr[0], stderr[0]
    assert "Traceback" not in result.stderr  # type: ignore[attr-defined]


def _refused_alone(tmp_path: Path, make: Callable[[Path], Path], reason: str) -> Path:
    """A store of one good conversation and the bad one `make` writes, migrated: the bad
    one is one error line naming it (exit 2) and left byte for byte, the good one migrated."""
    root, good = _store(tmp_path)
    bad = make(root)
    bad_bytes = bad.read_bytes()
    result = run_cli("conversations", str(root))
    assert result.returncode == 2, result.stdout + result.stderr
    _assert_one_error(result, BAD, reason)
    assert isinstance(responses(good)[0]["content"], list)  # the rest was migrated
    assert bad.read_bytes() == bad_bytes  # the bad file untouched
    return root


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_input(tmp_path: Path, case: str) -> None:
    make, reason = CASES[case]
    root = _refused_alone(tmp_path, make, reason)
    # the dry run and the check name it the same way
    check = run_cli("conversations", str(root), "--check")
    assert check.returncode == 2
    _assert_one_error(check, BAD, reason)


def test_locked_conversation_is_skipped_and_reported(tmp_path: Path) -> None:
    root, good = _store(tmp_path)
    bad = write_conversation(root, BAD, legacy_events())
    bad_bytes = bad.read_bytes()
    with held_by_jp(root, BAD.split("-")[0]):
        result = run_cli("conversations", str(root))
        check = run_cli("conversations", str(root), "--check")
    assert result.returncode == 2
    _assert_one_error(result, BAD, "locked by a running jp")
    assert check.returncode == 2
    assert isinstance(responses(good)[0]["content"], list)
    assert bad.read_bytes() == bad_bytes
    assert run_cli("conversations", str(root)).returncode == 0  # once jp let go, it migrates
    assert isinstance(responses(bad)[0]["content"], list)


def test_the_migrator_holds_the_lock_jp_uses(tmp_path: Path) -> None:
    from jp_migrate.store.discover import Conversation, StorageRoot
    from jp_migrate.store.lock import HeldLock, LockTable, lock_path

    root = tmp_path / "store"
    write_conversation(root, BAD, legacy_events())
    conversation = Conversation(StorageRoot(root, str(root)), BAD, archived=False)
    assert conversation.id == "17000000002"
    held = HeldLock(LockTable(), (str(root),), conversation.id)
    try:
        assert lock_path(root, "17000000002") == root / "locks" / "17000000002.lock"
        fd = os.open(lock_path(root, conversation.id), os.O_RDWR)
        with pytest.raises(BlockingIOError):  # a jp starting now cannot take it
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.close(fd)
    finally:
        held.release()
    assert not lock_path(root, conversation.id).exists()  # like jp, no lock file left behind


def test_plain_text_that_looks_like_broken_base64_is_plain(tmp_path: Path) -> None:
    """SPEC §3 detection: a legacy string that is not valid base64 is plain text, not an error."""
    root = tmp_path / "store"
    path = write_conversation(root, GOOD, legacy_events(text="SGVsbG8=!", encode=False))
    assert run_cli("conversations", str(root)).returncode == 0
    assert responses(path)[0]["content"] == [{"type": "text", "text": "SGVsbG8=!"}]
    assert b64("x")  # helper sanity


def test_a_temporary_left_by_a_killed_run_is_removed_and_said(tmp_path: Path) -> None:
    """Ours (not jp's events.json.tmp): removed under the lock, named on stderr and in the report."""
    root = tmp_path / "store"
    changed = write_conversation(root, "17000000001-a", legacy_events())
    same = write_conversation(root, "17000000002-b", legacy_events()[:2])
    for path in (changed, same):
        (path.parent / ".events.json.jp-migrate.partial").write_text("[")
    result = run_cli("conversations", str(root))
    assert result.returncode == 0, result.stderr
    for path in (changed, same):
        assert not (path.parent / ".events.json.jp-migrate.partial").exists()
        note = f"note: {path}: removed .events.json.jp-migrate.partial left by an interrupted run"
        assert note in result.stderr.splitlines()


def _deep_beside_a_response(root: Path) -> Path:
    """Compact (spliced, not JP's format), a value ~1,000 deep in another event: orjson takes it."""
    deep = "[" * 1000 + "]" * 1000
    return write_conversation(root, BAD, _with_response(RESPONSE).replace('"run it"', deep, 1))


def _repeated_content(root: Path) -> Path:
    """serde_json refuses a repeated field; the parsers keep the last, which would drop the first."""
    blob = '[{"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAECAwQF"}}]'
    return write_conversation(
        root, BAD, _with_response(RESPONSE.replace('"content":', f'"content": {blob}, "content":'))
    )


RESPONSE = '{"type": "tool_call_response", "id": "x1", "content": "aGVsbG8=", "is_error": false}'


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_deep_beside_a_response, "nested too deeply"),
        (_repeated_content, "duplicate field `content`"),
    ],
    ids=["nested 1,000 deep", "repeated field"],
)
def test_an_event_that_cannot_be_rewritten_faithfully_is_refused(
    tmp_path: Path, make: Callable[[Path], Path], reason: str
) -> None:
    root = _refused_alone(tmp_path, make, reason)
    # --check refuses it as the run did (it had counted it as one more to migrate: exit 1)
    check = run_cli("conversations", str(root), "--check")
    assert check.returncode == 2, check.stdout + check.stderr
    _assert_one_error(check, BAD, reason)


def _nested(depth: int) -> Callable[[Path], Path]:
    """A store whose events.json nests `depth` levels: the array (1), an event (2), its
    metadata (3), then lists."""

    def make(root: Path) -> Path:
        events = legacy_events()
        deep: object = "bottom"
        for _ in range(depth - 3):
            deep = [deep]
        events[0]["metadata"] = {"n": deep}
        return write_conversation(root, BAD, events)

    return make


@pytest.mark.parametrize("check", [False, True], ids=["migrate", "--check"])
def test_an_events_file_nested_deeper_than_jp_reads_is_reported_not_migrated(
    tmp_path: Path, check: bool
) -> None:
    """JP's serde_json reads 127 levels: a file one level deeper is one it cannot load, so it
    is reported as such (orjson, which parses the store, reads 1,024)."""
    root, _good = _store(tmp_path)
    bad = _nested(128)(root)
    before = bad.read_bytes()
    result = run_cli("conversations", str(root), *(["--check"] if check else []))
    assert result.returncode == 2, result.stdout + result.stderr
    _assert_one_error(result, BAD, "nested too deeply (JP reads 127 levels")
    assert bad.read_bytes() == before


def test_an_events_file_as_deep_as_jp_reads_is_migrated(tmp_path: Path) -> None:
    root = tmp_path / "store"
    path = _nested(127)(root)
    result = run_cli("conversations", str(root))
    assert result.returncode == 0, result.stderr
    assert isinstance(responses(path)[0]["content"], list)
