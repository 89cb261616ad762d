"""`jp-migrate verify` end to end: control vs candidate, Scientist-style, through the CLI."""

from __future__ import annotations

import base64
import json
import shutil
import sys
from pathlib import Path

import pytest
from bridge_support import python_on_path, template, write_cases, write_tools
from conftest import CORPUS_DATA, EXAMPLES, run_cli

from jp_migrate.bridge.target import Target
from jp_migrate.bridge.verify import Case, cases_from_store, load_cases, verify_cases
from jp_migrate.errors import ContractError, JpMigrateError

CASES = [
    {"name": "greet", "arguments": {"action": "greet", "name": "Ada"}},
    {"name": "permanent error", "arguments": {"action": "fail"}},
    {"name": "transient error", "arguments": {"action": "flaky"}},
    {"name": "question", "arguments": {"action": "confirm"}, "answers": {"confirm": True}},
    {"name": "select with default", "arguments": {"action": "pick"}},
    {"name": "raw text", "arguments": {"action": "raw"}},
    {"name": "crash", "arguments": {"action": "crash"}},
    {"name": "content array", "arguments": {"action": "envelope"}},
    {"name": "options", "arguments": {"action": "context"}, "options": {"v": 1}},
]
EXPECTED = {
    "permanent error": ("expected", ["error-text-is-message"]),
    "transient error": ("expected", ["transient-error-in-meta"]),
    "content array": ("expected", ["content-array-parsed"]),
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_tools(tmp_path_factory.mktemp("ws"))
    write_cases(root / "cases.jsonl", CASES)
    return root


def verify(ws: Path, *args: str) -> tuple[int, dict, str, str]:
    report = ws.parent / f"report-{abs(hash(args))}.json"
    proc = run_cli("verify", *args, "--report", f"json={report}", "--report", "terminal")
    data = json.loads(report.read_text()) if report.exists() else {}
    return proc.returncode, data, proc.stdout, proc.stderr


def verify_tools(ws: Path, cases: Path, before: str, after: str) -> tuple[int, dict, str, str]:
    """`verify` of the cases in `cases` with the workspace's tool `before` against `after`.

    `after` that is a command (has a space) is given as `--after` instead of a tool name.
    """
    side = ("--after", after) if " " in after else ("--after-tool", after)
    return verify(ws, "--before-tool", before, *side, "--cases", str(cases), "-w", str(ws))


def verdicts(report: dict) -> dict[str, tuple[str, list[str]]]:
    return {
        c["inputs"]["case"].split("(", 1)[1].rstrip(")"): (c["verdict"], c["differences"])
        for c in report["verify"]
    }


def test_templates_before_and_after_never_mismatch(ws: Path) -> None:
    rc, report, _, err = verify(
        ws,
        "--before",
        template("legacy"),
        "--after",
        template("migrated"),
        "--cases",
        str(ws / "cases.jsonl"),
        "-w",
        str(ws),
        "--name",
        "legacy",
    )
    assert rc == 0, err
    expected = {c["name"]: EXPECTED.get(c["name"], ("match", [])) for c in CASES}
    # The transient-error case is semantically equal; its text differs as SPEC §2 lists.
    assert verdicts(report) == expected
    assert report["totals"]["cases"] == len(CASES) and report["totals"]["mismatches"] == 0


def test_broken_after_is_a_mismatch_with_the_case_that_shows_it(ws: Path) -> None:
    rc, report, out, _ = verify(
        ws,
        "--before-tool",
        "legacy",
        "--after-tool",
        "broken",
        "--cases",
        str(ws / "cases.jsonl"),
        "-w",
        str(ws),
    )
    assert rc == 1
    (bad,) = [c for c in report["verify"] if c["verdict"] == "mismatch"]
    assert bad["inputs"]["arguments"] == {"action": "greet", "name": "Ada"}
    assert bad["differences"] == ["content"]
    assert bad["control"]["text"] == "Hello, Ada!" and bad["candidate"]["text"] == "Hi, Ada!"
    assert "'Hello, Ada!' → 'Hi, Ada!'" in bad["message"]
    # The terminal report names it with the inputs and both observations.
    assert "mismatch" in out and "Hi, Ada!" in out


def test_a_content_array_parsed_now_must_be_what_the_candidate_prints(
    ws: Path, tmp_path: Path
) -> None:
    """The control's raw JSON, parsed by the new host, is the one expected candidate."""
    after = tmp_path / "after.py"
    after.write_text(
        (ws / "migrated.py")
        .read_text()
        .replace('"text": "inside"}]}', '"text": "denied"}], "isError": True}')
    )
    cases = write_cases(tmp_path / "c.jsonl", [{"arguments": {"action": "envelope"}}])
    rc, report, _, _ = verify_tools(ws, cases, "legacy", f"{sys.executable} {after} '{{{{tool}}}}'")
    assert rc == 1
    (case,) = report["verify"]
    assert (case["verdict"], sorted(case["differences"])) == ("mismatch", ["content", "is_error"])
    assert "'inside' → 'denied'" in case["message"]


def test_two_workspaces_and_one_tool_name(ws: Path, tmp_path: Path) -> None:
    after = tmp_path / "after"
    shutil.copytree(ws, after)
    shutil.copy(ws / "migrated.py", after / "legacy.py")  # the migrated source under the old name
    rc, report, _, _ = verify(
        ws,
        "--before-workspace",
        str(ws),
        "--after-workspace",
        str(after),
        "--tool",
        "legacy",
        "--cases",
        str(ws / "cases.jsonl"),
    )
    assert rc == 0 and {v for v, _ in verdicts(report).values()} == {"match", "expected"}


def test_jobs_keep_case_order_and_verdicts(ws: Path) -> None:
    args = (
        "--before-tool",
        "legacy",
        "--after-tool",
        "broken",
        "--cases",
        str(ws / "cases.jsonl"),
        "-w",
        str(ws),
    )
    _, one, _, _ = verify(ws, *args, "--jobs", "1")
    _, two, _, _ = verify(ws, *args, "--jobs", "2")
    assert one["verify"] == two["verify"]


def test_a_case_that_cannot_run_is_an_error_not_a_mismatch(ws: Path, tmp_path: Path) -> None:
    cases = write_cases(
        tmp_path / "c.jsonl", [{"arguments": {"action": "confirm"}}]
    )  # no answer given
    rc, report, _, _ = verify_tools(ws, cases, "legacy", "migrated")
    assert rc == 2
    (case,) = report["verify"]
    assert case["verdict"] == "error" and "question 'confirm'" in case["message"]


def test_an_error_outranks_a_mismatch_in_the_exit_code(ws: Path, tmp_path: Path) -> None:
    """As `check` and every other command: 2 when a case could not run, even with a mismatch."""
    cases = write_cases(
        tmp_path / "c.jsonl",
        [{"arguments": {"action": "greet"}}, {"arguments": {"action": "confirm"}}],
    )  # greet differs in broken.py; confirm has no answer
    rc, report, _, _ = verify_tools(ws, cases, "legacy", "broken")
    assert [c["verdict"] for c in report["verify"]] == ["mismatch", "error"]
    assert rc == 2 and report["exit_code"] == 2


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{nope", "invalid JSON"),
        ("[1]", "must be a JSON object"),
        ('{"args": {}}', "unknown keys args"),
        ('{"arguments": 3}', "arguments must be a JSON object"),
    ],
)
def test_bad_cases_file_is_one_line_naming_file_and_line(
    ws: Path, tmp_path: Path, line: str, reason: str
) -> None:
    cases = tmp_path / "bad.jsonl"
    cases.write_text('{"arguments": {}}\n\n' + line + "\n", encoding="utf-8")
    proc = run_cli("verify", "--tool", "legacy", "-w", str(ws), "--cases", str(cases))
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(f"error: {cases}:3: ") and reason in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_shared_cases_file_selects_lines_by_tool(tmp_path: Path) -> None:
    path = write_cases(tmp_path / "c.jsonl", [{"tool": "a"}, {"tool": "b"}, {}])
    assert len(load_cases(path)) == 3
    assert [c.tool for c in load_cases(path, tool="a")] == ["a", None]


# ── --cases-from: real calls from a conversation store ────────────────────────


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _store(root: Path) -> Path:
    conversation = root / ".jp" / "conversations" / "17000000000-demo"
    conversation.mkdir(parents=True)
    events = [
        {
            "timestamp": "t",
            "type": "tool_call_request",
            "id": "c1",
            "name": "writer",
            "arguments": {"action": _b64("greet"), "name": _b64("Zoë")},
        },
        {
            "timestamp": "t",
            "type": "tool_call_response",
            "id": "c1",
            "content": _b64("Hello, Zoë!"),
            "is_error": False,
        },
        {
            "timestamp": "t",
            "type": "tool_call_request",
            "id": "c2",
            "name": "writer",
            "arguments": {"action": _b64("confirm")},
        },
        {
            "timestamp": "t",
            "type": "inquiry_request",
            "id": "c2.confirm",
            "question": {"text": "Apply?"},
        },
        {"timestamp": "t", "type": "inquiry_response", "id": "c2.confirm", "answer": False},
        {
            "timestamp": "t",
            "type": "tool_call_request",
            "id": "c3",
            "name": "other",
            "arguments": {},
        },
    ]
    (conversation / "events.json").write_text(json.dumps(events, indent=2), encoding="utf-8")
    return root


def test_cases_from_store_decode_arguments_and_carry_inquiry_answers(tmp_path: Path) -> None:
    cases = cases_from_store(_store(tmp_path), "writer")
    assert [(dict(c.arguments), dict(c.answers)) for c in cases] == [
        ({"action": "greet", "name": "Zoë"}, {}),
        ({"action": "confirm"}, {"confirm": False}),
    ]
    assert cases[0].origin == "17000000000-demo#c1"


@pytest.fixture
def side_effect_ws(tmp_path: Path) -> Path:
    root = write_tools(_store(tmp_path / "ws"))
    # A tool with a side effect: it leaves a file in the directory it runs in.
    for name in ("legacy", "migrated"):
        source = (root / f"{name}.py").read_text()
        (root / f"{name}.py").write_text(f"open('touched-{name}', 'w').close()\n{source}")
        cfg = root / ".jp" / "mcp" / "tools" / f"{name}.toml"
        cfg.write_text(
            cfg.read_text().replace(
                f"[conversation.tools.{name}]", f"[conversation.tools.writer_{name}]"
            )
        )
    return root


def test_cases_from_store_run_in_a_scratch_copy(side_effect_ws: Path) -> None:
    rc, report, _, err = verify(
        side_effect_ws,
        "--cases-from",
        str(side_effect_ws),
        "--tool",
        "writer",
        "--before-tool",
        "writer_legacy",
        "--after-tool",
        "writer_migrated",
        "-w",
        str(side_effect_ws),
    )
    assert rc == 0, err
    assert [c["verdict"] for c in report["verify"]] == ["match", "match"]
    assert report["verify"][1]["candidate"]["text"] == "skipped"  # the stored answer was used
    assert not list(side_effect_ws.glob("touched-*"))


def test_cases_from_store_in_place(side_effect_ws: Path) -> None:
    rc, _, _, _ = verify(
        side_effect_ws,
        "--cases-from",
        str(side_effect_ws),
        "--tool",
        "writer",
        "--in-place",
        "--before-tool",
        "writer_legacy",
        "--after-tool",
        "writer_migrated",
        "-w",
        str(side_effect_ws),
    )
    assert rc == 0
    assert sorted(p.name for p in side_effect_ws.glob("touched-*")) == [
        "touched-legacy",
        "touched-migrated",
    ]


def test_cases_from_store_include_the_workspace_s_user_local_storage(
    tmp_path: Path, jp_data_home: Path
) -> None:
    # JP keeps a workspace's local conversations in its user-local directory, named
    # `<slug>-<workspace id>` (RFD 031): `conversations` migrates them, replay reads them too.
    ws = _store(tmp_path / "ws")
    (ws / ".jp" / ".id").write_text("t8k2q\n", "utf-8")
    user = jp_data_home / "workspace" / "ws-t8k2q"
    local = _store(tmp_path / "elsewhere") / ".jp" / "conversations" / "17000000000-demo"
    shutil.copytree(local, user / "conversations" / "17000000009-local")
    cases = cases_from_store(ws, "writer")
    assert [c.origin for c in cases] == [
        "17000000000-demo#c1",
        "17000000000-demo#c2",
        "17000000009-local#c1",
        "17000000009-local#c2",
    ]
    assert dict(cases[3].answers) == {"confirm": False}


def test_cases_from_store_read_one_conversation_and_name_a_bad_file(tmp_path: Path) -> None:
    conversation = _store(tmp_path) / ".jp" / "conversations" / "17000000000-demo"
    assert len(cases_from_store(conversation, "writer")) == 2
    (conversation / "events.json").write_text('{"not": "an array"}', "utf-8")
    with pytest.raises(JpMigrateError, match=r"17000000000-demo/events.json: .*JSON array"):
        cases_from_store(tmp_path, "writer")


def test_real_corpus_store_yields_cases(tmp_path: Path) -> None:
    corpus = CORPUS_DATA / "jp-store"
    cases = cases_from_store(corpus, "fs_modify_file")
    assert len(cases) == 3
    assert any(c.answers == {"apply_changes": True} for c in cases)
    assert all(
        isinstance(c.arguments.get("path", ""), str) and "anVz" not in str(c.arguments)
        for c in cases
    )


# ── the Python API other capabilities call ────────────────────────────────────


def test_verify_cases_api(ws: Path) -> None:
    before = Target.from_template(template("legacy"), "legacy", ws)
    after = Target.from_workspace(ws, "migrated")
    results = verify_cases(
        before, after, [Case({"action": "greet"}), Case({"action": "fail"})], jobs=2, timeout=30
    )
    assert [r.verdict for r in results] == ["match", "expected"]
    assert [r.index for r in results] == [0, 1]


def test_load_cases_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ContractError, match="cannot read"):
        load_cases(tmp_path / "nope.jsonl")


# ── the example MCP server: --jp (before) against native (after) ──────────────

# Each tool is run in both modes by test_bridge_mcp; here the two richest pairs go through verify
# (a transient error in _meta, and Outcome::NeedsInput against an input_required elicitation).
MCP_TOOLS = ["service_status", "delete_file"]


@pytest.mark.parametrize("tool", MCP_TOOLS)
def test_example_mcp_server_before_and_after(
    tool: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", python_on_path()["PATH"])
    ws = EXAMPLES / "tools"
    rc, report, _, err = verify(
        tmp_path,
        "--before-tool",
        f"mcp_{tool}_jp",
        "--after-tool",
        f"mcp_{tool}",
        "--cases",
        str(ws / "cases.jsonl"),
        "-w",
        str(ws),
        "--jobs",
        "2",
    )
    assert rc == 0, err
    assert report["verify"] and all(c["verdict"] in ("match", "expected") for c in report["verify"])


def test_verify_keeps_one_mcp_server_per_worker_and_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", python_on_path()["PATH"])
    starts, record = tmp_path / "starts", tmp_path / "record.jsonl"
    jp = tmp_path / "ws" / ".jp"
    jp.mkdir(parents=True)
    server = EXAMPLES / "mcp_server" / "server.py"
    args = json.dumps([str(server), "--log-start", str(starts), "--record", str(record)])
    (jp / "config.toml").write_text(
        f'[providers.mcp.s]\ncommand = "python3"\narguments = {args}\n'
        '[conversation.tools.greet]\nsource = "mcp.s.greet"\n',
        encoding="utf-8",
    )
    cases = write_cases(tmp_path / "c.jsonl", [{"arguments": {"name": str(i)}} for i in range(3)])
    rc, report, _, err = verify(
        tmp_path, "--tool", "greet", "--cases", str(cases), "-w", str(jp.parent)
    )
    assert rc == 0, err
    assert [c["verdict"] for c in report["verify"]] == ["match"] * 3
    assert len(record.read_text().splitlines()) == 6  # every case, both sides
    # one server per side (never shared: its state would leak), kept across the cases
    assert len(starts.read_text().splitlines()) == 2


def test_cases_from_store_with_an_mcp_server_outside_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The example config starts `python3 ../mcp_server/server.py`: outside the workspace, so the
    # scratch copy reaches it by its absolute path.
    monkeypatch.setenv("PATH", python_on_path()["PATH"])
    shutil.copytree(EXAMPLES / "mcp_server", tmp_path / "mcp_server")
    ws = tmp_path / "tools"
    shutil.copytree(
        EXAMPLES / "tools" / ".jp", ws / ".jp", ignore=shutil.ignore_patterns("conversations")
    )
    conversation = ws / ".jp" / "conversations" / "17000000001-mcp"
    conversation.mkdir(parents=True)
    events = [
        {"timestamp": "t", "type": "tool_call_request", "id": "c1", "name": "mcp_delete_file",
         "arguments": {"path": _b64("x.txt")}},
        {"timestamp": "t", "type": "inquiry_response", "id": "c1.confirm", "answer": True},
    ]  # fmt: skip
    (conversation / "events.json").write_text(json.dumps(events), encoding="utf-8")
    rc, report, _, err = verify(
        tmp_path, "--cases-from", str(ws), "--tool", "mcp_delete_file",
        "--before-tool", "mcp_delete_file_jp", "--after-tool", "mcp_delete_file", "-w", str(ws),
    )  # fmt: skip
    assert rc == 0, err
    (case,) = report["verify"]
    assert case["verdict"] == "match" and case["candidate"]["text"] == "deleted x.txt"


def test_relocated_anchors_paths_outside_and_moves_absolute_paths_inside(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "tool.py").write_text("")
    (tmp_path / "common.py").write_text("")
    (tmp_path / "link").symlink_to(tmp_path / "ws")
    ws = tmp_path / "ws"
    target = Target.from_template(
        f"python3 tool.py ../common.py '{{{{tool}}}}' --x ../missing.py {ws}/tool.py"
        f" {tmp_path}/common.py {ws} {tmp_path}/link/out.txt {tmp_path}/wsx/a.py",
        "t",
        tmp_path / "link",
    )
    copy = tmp_path / "copy"
    moved = target.relocated(copy)
    assert moved.root == copy
    assert moved.command is not None
    assert moved.command.args == (
        "tool.py",
        str((tmp_path / "common.py").resolve()),
        "{{tool}}",
        "--x",
        "../missing.py",
        f"{copy}/tool.py",  # inside the workspace (its resolved spelling): the copy's file
        f"{tmp_path}/common.py",  # outside: unchanged
        str(copy),
        f"{copy}/out.txt",  # inside, as the workspace was named: moved too, even if missing
        f"{tmp_path}/wsx/a.py",  # a sibling whose name starts alike is outside
    )


def test_bracketed_text_in_cases_and_output_is_text_not_markup(tmp_path: Path) -> None:
    tool = tmp_path / "tool.py"
    tool.write_text('print("PATH entries: [/usr/bin] [bold]x[/bold]")\n')
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"name": "lists [/usr/bin]"}\n')
    before = f"python3 {tool}"
    after = "python3 -c \"print('PATH entries: [/usr/lib]')\""
    proc = run_cli(
        "verify",
        "--before",
        before,
        "--after",
        after,
        "--cases",
        str(cases),
        "--report",
        "terminal",
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    shown = proc.stdout + proc.stderr
    assert "lists [/usr/bin]" in shown and "[bold]x[/bold]" in shown


def test_no_case_to_run_is_an_error_not_a_pass(ws: Path, tmp_path: Path) -> None:
    """An empty file, or one whose lines all name another tool: nothing verified, exit 2."""
    empty = write_cases(tmp_path / "empty.jsonl", [])
    other = write_cases(tmp_path / "other.jsonl", [{"tool": "legacy", "arguments": {}}])
    for cases in (empty, other):
        proc = run_cli(
            "verify", "--before-tool", "legacy", "--after-tool", "migrated", "-w", str(ws),
            "--cases", str(cases),
        )  # fmt: skip
        assert proc.returncode == 2
        assert proc.stderr.strip() == (
            f"error: {cases}: no cases for tool 'migrated' (lines naming another tool are skipped)"
        )


def test_commands_take_only_the_lines_for_their_tool_name(tmp_path: Path) -> None:
    """--before/--after commands run under --name, else 'tool': a line naming another tool
    is not theirs (every line of a shared cases file had been run against the commands)."""
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text(
        'import json, sys\nprint(json.dumps({"type": "success", "content": sys.argv[1]}))\n',
        encoding="utf-8",
    )
    new.write_text(
        "import json, sys\n"
        'print(json.dumps({"content": [{"type": "text", "text": sys.argv[1]}]}))\n',
        encoding="utf-8",
    )
    before, after = (f"{sys.executable} {s} '{{{{tool.arguments.x}}}}'" for s in (old, new))
    cases = write_cases(
        tmp_path / "c.jsonl",
        [{"arguments": {"x": "a"}}, {"tool": "other", "arguments": {"x": "b"}},
         {"tool": "mine", "arguments": {"x": "c"}}],
    )  # fmt: skip
    runs = {}
    for name in (None, "mine"):
        named = ["--name", name] if name else []
        proc = run_cli(
            "verify", "--before", before, "--after", after, "--cases", str(cases),
            "-w", str(tmp_path), "--report", f"json={tmp_path / 'r.json'}", *named,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stdout + proc.stderr
        report = json.loads((tmp_path / "r.json").read_text())
        runs[name] = [c["inputs"]["arguments"]["x"] for c in report["verify"]]
    assert runs == {None: ["a"], "mine": ["a", "c"]}


def test_two_workspaces_read_the_candidate_s_paths_as_the_control_s(tmp_path: Path) -> None:
    """The same tool in two checkouts prints its own path: the same behaviour, a match."""
    legacy = 'import json\nprint(json.dumps({"type": "success", "content": "at " + __file__}))\n'
    migrated = (
        "import json\n"
        'print(json.dumps({"content": [{"type": "text", "text": "at " + __file__}]}))\n'
    )
    for name, source in (("before", legacy), ("after", migrated)):
        (tmp_path / name / ".jp").mkdir(parents=True)
        (tmp_path / name / "where.py").write_text(source)
        (tmp_path / name / ".jp" / "config.toml").write_text(
            '[conversation.tools.where]\nsource = "local"\n'
            f'command = "{sys.executable} {tmp_path / name / "where.py"}"\n'
        )
    cases = write_cases(tmp_path / "c.jsonl", [{"arguments": {}}])
    rc, report, _, err = verify(
        tmp_path,
        "--before-workspace", str(tmp_path / "before"),
        "--after-workspace", str(tmp_path / "after"),
        "--tool", "where", "--cases", str(cases),
    )  # fmt: skip
    assert rc == 0, err
    (case,) = report["verify"]
    assert case["verdict"] == "match"
    assert case["candidate"]["text"] == f"at {tmp_path / 'before' / 'where.py'}"
