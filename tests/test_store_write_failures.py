"""A failure while a conversation's new file is written (on the writer threads, or with
`--jobs` on each worker's conversion thread): disk full, a backup link refused. That conversation: a one-line error, its file untouched, no
temporary left, its lock released; every other conversation migrated; a rerun finishes."""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from store_support import jp_try_lock, legacy_events, responses, write_conversation

from jp_migrate.store import commit
from jp_migrate.store.api import StoreOptions, run_stores

BAD = "17000000002-bad"
GOOD = [f"1700000000{i}-good" for i in (1, 3, 4)]


def _failing(original: Callable[..., Any], position: int) -> Callable[..., Any]:
    """`original`, raising ENOSPC when its argument at `position` names the BAD conversation."""

    def call(*args: Any, **kwargs: Any) -> Any:
        if BAD in str(args[position]):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return original(*args, **kwargs)

    return call


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("where", ["temporary", "backup"])
def test_a_write_failure_spoils_only_its_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, jobs: int
) -> None:
    paths = {name: write_conversation(tmp_path, name, legacy_events()) for name in [*GOOD, BAD]}
    before = paths[BAD].read_bytes()
    if where == "temporary":
        monkeypatch.setattr(commit, "write_temp", _failing(commit.write_temp, 0))
    else:
        monkeypatch.setattr(commit, "link_or_copy", _failing(commit.link_or_copy, 0))

    run = run_stores([tmp_path], StoreOptions(jobs=jobs))  # workers inherit the failure

    by_name = {f.conversation: f for f in run.files}
    assert by_name[BAD].status == "error"
    doing = "writing" if where == "temporary" else "keeping the backup"
    assert by_name[BAD].message.startswith(f"{doing} {tmp_path}")
    assert by_name[BAD].message.endswith(": No space left on device")
    assert paths[BAD].read_bytes() == before
    assert sorted(os.listdir(paths[BAD].parent)) == ["events.json", "metadata.json"]
    assert jp_try_lock(paths[BAD].parent.parent.parent / "locks" / f"{BAD}.lock") == "acquired"
    for name in GOOD:
        assert by_name[name].status == "migrated"
        assert all(isinstance(r["content"], list) for r in responses(paths[name]))

    monkeypatch.undo()
    rerun = {f.conversation: f for f in run_stores([tmp_path], StoreOptions()).files}
    assert rerun[BAD].status == "migrated"
    assert all(rerun[name].status == "unchanged" for name in GOOD)
