"""Form 6: helpers in a sibling module, imported by several tools, migrated together."""

from __future__ import annotations

from pathlib import Path

from jp_migrate.codemod import ToolsOptions, migrate_tools

REPLIES = """import json

def ok(text):
    return {"type": "success", "content": text}

def fail(msg):
    return {"type": "error", "message": msg, "trace": [], "transient": False}
"""
USER = """import json
from _replies import ok, fail as bad

def main(x):
    print(json.dumps(ok(x) if x else bad("empty")))
"""
# `r.get("content")` is a read no mapping rewrites (a default may stand for a missing key).
READER = """import _replies

def main():
    r = _replies.ok("hi")
    print(r.get("content"))
"""
READS_MAPPED = """import json
import _replies
from _replies import fail

def main(x):
    r = _replies.ok(x) if x else fail("empty")
    if r["type"] == "error":
        print(json.dumps(fail("wrapped: " + r["message"])))
    elif r["type"] != "needs_input":
        print(f"{r['content']} {r['trace'] if r['type'] == 'error' else ''}")
"""


def _run(tmp_path: Path, files: dict[str, str]) -> dict[str, list[str]]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    done = migrate_tools([tmp_path], ToolsOptions(write=True))
    return {
        Path(f.path).name: [f"{s.line}:{s.column}: {s.action}: {s.reason}" for s in f.sites]
        for f in done
    }


def test_a_helper_module_and_its_users_migrate_together(tmp_path: Path) -> None:
    sites = _run(tmp_path, {"_replies.py": REPLIES, "user.py": USER})
    assert all(": rewritten: " in s for s in sites["_replies.py"])
    assert sites["user.py"] == []
    assert '"content": [{"type": "text", "text": text}]' in (tmp_path / "_replies.py").read_text()
    assert (tmp_path / "user.py").read_text() == USER  # nothing of its own to change


def test_a_read_of_a_sibling_helper_blocks_its_rewrite_and_both_say_so(tmp_path: Path) -> None:
    sites = _run(tmp_path, {"_replies.py": REPLIES, "user.py": USER, "reader.py": READER})
    assert (tmp_path / "_replies.py").read_text().count('"type": "success"') == 1
    ok_site = next(s for s in sites["_replies.py"] if s.startswith("4:12"))
    assert "unhandled" in ok_site and "reader.py:5:11 reads the legacy keys" in ok_site
    # fail() is not read anywhere: still rewritten
    assert any(s.startswith("7:12: rewritten") for s in sites["_replies.py"])
    (read,) = sites["reader.py"]
    assert read.startswith("5:11: unhandled: reads the legacy Outcome key 'content' of `r`")
    assert "`_replies.ok()`" in read


def test_reads_of_a_known_shape_migrate_with_the_helper_they_read(tmp_path: Path) -> None:
    sites = _run(tmp_path, {"_replies.py": REPLIES, "reader.py": READS_MAPPED})
    assert all(": rewritten: " in s for site in sites.values() for s in site)
    assert '"type": "success"' not in (tmp_path / "_replies.py").read_text()
    after = (tmp_path / "reader.py").read_text()
    assert 'if r.get("isError") is True:' in after
    assert 'elif (not any(block.get("type") == "question" for block in r["content"])):' in after
    text = "''.join(block['text'] for block in r['content'] if block.get('type') == 'text')"
    assert f"print(f\"{{{text}}} {{r['_meta']['computer.jp/error']['trace'] if" in after
    assert '"wrapped: " + "".join(block["text"] for block in r["content"]' in after


def test_a_read_of_a_helper_whose_file_refuses_a_site_is_not_rewritten(tmp_path: Path) -> None:
    refusing = REPLIES + "\ndef odd(kind):\n    return {'type': kind, 'content': 'x'}\n"
    sites = _run(tmp_path, {"_replies.py": refusing, "reader.py": READS_MAPPED})
    assert (tmp_path / "reader.py").read_text() == READS_MAPPED
    assert all(": unhandled: " in s for s in sites["reader.py"])


def test_a_sibling_that_does_not_parse_is_one_error_and_the_rest_migrates(tmp_path: Path) -> None:
    broken = "from _replies import ok\ndef f(:\n    return ok('x')\n"
    files = {"_replies.py": REPLIES, "user.py": USER, "broken.py": broken}
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    done = {Path(f.path).name: f for f in migrate_tools([tmp_path], ToolsOptions(write=True))}
    assert done["broken.py"].status == "error"
    assert done["broken.py"].message.startswith("2:7: syntax error")
    assert (tmp_path / "broken.py").read_text("utf-8") == broken
    assert done["_replies.py"].status == "migrated"
