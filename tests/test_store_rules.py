"""Opt-in store rules: `store-file-resource` (unit rows, then through the CLI on the corpus)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from store_support import CORPUS, b64, copy_tree, legacy_events, responses, write_conversation

from jp_migrate.convert.encoding import decode_payload
from jp_migrate.convert.events import stored_payload_text
from jp_migrate.convert.file_resource import file_uri, parse_fence, strip_markers
from jp_migrate.convert.store_rules import RuleContext, upgrade_events
from jp_migrate.rules import load_rule

RULE = load_rule(REPO / "rules" / "store-file-resource.toml")
MARKERS = RULE.match["excerpt_markers"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```rust\nfn main() {}\n```", ("rust", "fn main() {}")),
        ("```json\n{}\n\n```\n", ("json", "{}\n")),
        ("````md\n```inner```\n````", ("md", "```inner```")),
        ("```\n```", ("", "")),
        ("no fence", None),
        ("```\na\n```\ntrailing words", None),
        ("```\na\n```\nb\n```", None),  # two blocks
    ],
)
def test_parse_fence(text: str, expected: tuple[str, str] | None) -> None:
    assert parse_fence(text) == expected


@pytest.mark.parametrize(
    ("root", "path", "uri"),
    [
        ("/w", "src/main.rs", "file:///w/src/main.rs"),
        ("/w", "a b/ü.txt", "file:///w/a%20b/%C3%BC.txt"),
        ("/w", "/w/abs.txt", "file:///w/abs.txt"),
        ("/w", "./x/../y", "file:///w/y"),
        ("/w", "../escape", None),
        ("/w", "a/../../escape", None),
        ("/w", "/etc/passwd", None),
        ("/w", "/wx/sibling", None),
        ("relative-root", "x", None),
        ("/w", "", None),
    ],
)
def test_file_uri_never_escapes_the_root(root: str, path: str, uri: str | None) -> None:
    assert file_uri(root, path) == uri


def test_excerpt_markers_are_not_file_content() -> None:
    body = "... (starting from line #3) ...\nline 3\nline 4\n\n... (truncated after line #4) ..."
    assert strip_markers(body, MARKERS) == "line 3\nline 4\n"
    assert strip_markers("just text", MARKERS) == "just text"


def _read_file_events(
    path: str, text: str, *, tool: str = "fs_read_file"
) -> list[dict[str, object]]:
    return [
        {
            "timestamp": "t",
            "type": "tool_call_request",
            "id": "r",
            "name": tool,
            "arguments": {"path": b64(path)},
        },
        {
            "timestamp": "t",
            "type": "tool_call_response",
            "id": "r",
            "content": b64(text),
            "is_error": False,
        },
    ]


def test_rule_output_renders_exactly_the_legacy_text() -> None:
    text = "```python\nprint('hi')\n```\n"
    result = upgrade_events(
        _read_file_events("app.py", text),
        rules=(RULE.id,),
        root="/w",
        matches={RULE.id: RULE.match},
    )
    (block,) = result.events[1]["content"]
    assert block["type"] == "resource"
    assert block["resource"]["uri"] == "file:///w/app.py"
    assert block["resource"]["mimeType"] == "text/x-python"
    assert decode_payload(block["resource"]["text"])[0] == "print('hi')"
    assert stored_payload_text(result.events[1]) == text
    assert result.rules == [RULE.id]


def test_tool_names_come_from_the_rule_data() -> None:
    events = _read_file_events("a.txt", "```\nx\n```", tool="cat_file")
    plain = upgrade_events(events, rules=(RULE.id,), root="/w", matches={RULE.id: RULE.match})
    assert plain.events[1]["content"][0]["type"] == "text"
    custom = {**RULE.match, "tools": ["cat_file"]}
    rich = upgrade_events(events, rules=(RULE.id,), root="/w", matches={RULE.id: custom})
    assert rich.events[1]["content"][0]["type"] == "resource"


def test_rule_context_carries_the_match_table() -> None:
    context = RuleContext(text="x", is_error=False, request=None, root=None)
    assert dict(context.match) == {}


def test_cli_rule_on_the_corpus_workspace(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    copy_tree(CORPUS, workspace / ".jp")
    check = run_cli(
        "conversations", str(workspace), "--rule", "store-file-resource", "--check",
        "--report", "json",
    )  # fmt: skip
    assert check.returncode == 1, check.stderr  # and it says which rule would apply where
    checked = {tuple(f["rules"]) for f in json.loads(check.stdout)["store"]}
    assert ("store-faithful-text", "store-file-resource") in checked
    result = run_cli("conversations", str(workspace), "--rule", "store-file-resource")
    assert result.returncode == 0, result.stderr
    path = next((workspace / ".jp").glob("conversations/17727484633-*/events.json"))
    kinds = [r["content"][0]["type"] for r in responses(path)]
    assert kinds.count("resource") == 4  # the four fs_read_file responses
    manifest = json.loads(
        next((workspace / ".jp" / ".jp-migrate" / "runs").glob("*/manifest.json")).read_text()
    )
    rules = {tuple(f["rules"]) for f in manifest["files"]}
    assert ("store-faithful-text", "store-file-resource") in rules
    uris = [
        decode_payload(r["content"][0]["resource"]["uri"])[0]
        for r in responses(path)
        if r["content"][0]["type"] == "resource"
    ]
    assert all(u.startswith(f"file://{workspace}/") for u in uris)
    verify = run_cli("conversations", str(workspace), "--verify")  # renders exactly the legacy text
    assert verify.returncode == 0, verify.stderr
    assert (
        "would not survive a downgrade" in verify.stderr
    )  # a richer block does not come back as itself


def test_rules_dir_and_unknown_rule(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    text = (REPO / "rules" / "store-file-resource.toml").read_text()
    (rules / "store-file-resource.toml").write_text(
        text.replace('tools = ["fs_read_file", "read_file"]', 'tools = ["cat_file"]')
    )
    workspace = tmp_path / "ws"
    events = legacy_events()[:1] + _read_file_events(
        "notes.md", "```md\n# hi\n```", tool="cat_file"
    )
    path = write_conversation(workspace / ".jp", "17000000001-a", events)
    result = run_cli("conversations", str(workspace), "--rules", str(rules))
    assert result.returncode == 0, result.stderr
    assert responses(path)[0]["content"][0]["type"] == "resource"
    unknown = run_cli("conversations", str(workspace), "--rule", "store-nope")
    assert unknown.returncode == 2 and "store-nope" in unknown.stderr


def test_without_a_workspace_root_no_uri_is_made(tmp_path: Path) -> None:
    root = tmp_path / "storage"  # a storage root that is not a workspace's .jp/
    path = write_conversation(root, "17000000001-a", _read_file_events("a.rs", "```rust\nx\n```"))
    assert run_cli("conversations", str(root), "--rule", "store-file-resource").returncode == 0
    assert responses(path)[0]["content"][0]["type"] == "text"
    shutil.rmtree(root)


@pytest.mark.parametrize(
    ("line", "replacement", "error"),
    [
        (
            "excerpt_markers = [",
            "excerpt_markers = ['(unclosed']\n#",
            "is not a regular expression",
        ),
        ('tools = ["fs_read_file", "read_file"]', "tools = 5", "expected a list of strings"),
        ('path_argument = "path"', "path_argument = 3", "expected a string"),
    ],
    ids=["bad pattern", "tools not a list", "path_argument not a string"],
)
def test_a_match_table_the_rule_cannot_read_stops_before_any_store(
    tmp_path: Path, line: str, replacement: str, error: str
) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    text = (REPO / "rules" / "store-file-resource.toml").read_text()
    assert line in text
    (rules / "store-file-resource.toml").write_text(text.replace(line, replacement, 1))
    path = write_conversation(tmp_path / "ws" / ".jp", "17000000001-a", legacy_events())
    before = path.read_bytes()
    result = run_cli("conversations", str(tmp_path / "ws"), "--rules", str(rules))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    (message,) = result.stderr.strip().splitlines()
    assert "store-file-resource.toml: match." in message and error in message
    assert path.read_bytes() == before
    tested = run_cli("rules", "test", "--rules", str(rules))
    assert tested.returncode == 1 and "Traceback" not in tested.stderr + tested.stdout
    assert error in tested.stdout


def test_a_rule_id_is_never_read_as_a_directory_of_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--rule store-file-resource` with an (empty, or edited) ./store-file-resource/ there."""
    from jp_migrate.store.selection import select_rules

    monkeypatch.chdir(tmp_path)
    (tmp_path / "store-file-resource").mkdir()
    ids, matches = select_rules(["store-file-resource"])
    assert ids == ("store-file-resource",)
    assert matches["store-file-resource"]["tools"] == ["fs_read_file", "read_file"]
    (tmp_path / "mine").mkdir()
    assert select_rules(["mine"]) == ((), {})  # a config's directory of rules: none in it
