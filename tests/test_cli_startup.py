"""Start-up: each command loads only what it uses (the import set, not a timing)."""

from __future__ import annotations

import ast
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import run_cli

HEAVY = {"pydantic", "rich", "libcst", "mcp", "jsonschema", "pygments", "minijinja", "orjson"}

PROBE = """
import sys
from jp_migrate.cli import main
sys.argv = ["jp-migrate", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    code = exit.code
print(code, sorted({name.split(".")[0] for name in sys.modules} & HEAVY), file=sys.stderr)
"""


def loaded(*args: str, cwd: Path) -> tuple[int, list[str]]:
    """Run the CLI in a fresh interpreter: its exit code and the heavy libraries it imported."""
    done = subprocess.run(
        [sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{PROBE}", *args],
        capture_output=True, text=True, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip
    code, _, names = done.stderr.strip().splitlines()[-1].partition(" ")
    return int(code), ast.literal_eval(names)  # a list literal printed by the probe


def test_conversations_on_an_empty_store_loads_no_heavy_library(tmp_path: Path) -> None:
    (tmp_path / "ws" / ".jp" / "conversations").mkdir(parents=True)
    for args in (["--check"], [], ["--dry-run"], ["--check-integrity"], ["-q"]):
        assert loaded("conversations", "ws", *args, cwd=tmp_path) == (0, []), args
    result = run_cli("conversations", "ws", "--check", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, "no conversations found\n")
    # an empty store names a bad --rule as before: the fast path is not taken with one
    bad = run_cli("conversations", "ws", "--rule", "store-nope", cwd=tmp_path)
    assert bad.returncode == 2 and "store-nope" in bad.stderr


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('import sys\nprint("hello", file=sys.stderr)\n', "0 skipped"),
        ("# jp-migrate: skip\nprint({'type': 'success'})\n", "1 skipped"),
    ],
)
def test_tools_on_a_file_the_precheck_rules_out_loads_no_heavy_library(
    tmp_path: Path, source: str, expected: str
) -> None:
    (tmp_path / "tool.py").write_text(source)
    assert loaded("tools", "tool.py", "--check", cwd=tmp_path) == (0, [])
    result = run_cli("tools", "tool.py", "--check", cwd=tmp_path)
    assert result.returncode == 0
    assert (
        result.stderr
        == f"1 file: 0 would be rewritten, 0 with unhandled sites, 0 errors, {expected}\n"
    )


@pytest.mark.parametrize(
    ("source", "code", "library"),
    [
        ('print(\'{"type": "success", "content": "x"}\')\n', 1, "libcst"),  # a site
        ("def broken(:\n", 2, "libcst"),  # the codemod names the error
    ],
)
def test_a_file_the_precheck_cannot_rule_out_goes_to_the_codemod(
    tmp_path: Path, source: str, code: int, library: str
) -> None:
    (tmp_path / "tool.py").write_text(source)
    exit_code, names = loaded("tools", "tool.py", "--check", cwd=tmp_path)
    assert exit_code == code and library in names


def test_the_quick_verdicts_agree_with_the_codemod_on_the_stdlib() -> None:
    """Code nobody on the team wrote: wherever the quick path gives a verdict, the codemod
    gives the same one."""
    from jp_migrate.codemod.api import ToolsOptions, migrate_file
    from jp_migrate.codemod.quick import _judge

    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted([*(stdlib / "json").glob("*.py"), *(stdlib / "email").glob("*.py")])
    assert len(files) > 20
    judged = 0
    for path in files:
        quick = _judge(path)
        if quick is not None:
            judged += 1
            full = migrate_file(path, ToolsOptions(write=False))
            assert (quick.status, quick.message) == (full.status, full.message), path
    assert judged > 10


@pytest.mark.parametrize(
    "command", ["conversations", "rollback", "tools", "check", "verify", "convert", "bridge"]
)
def test_a_commands_help_loads_no_heavy_library(tmp_path: Path, command: str) -> None:
    assert loaded(command, "--help", cwd=tmp_path) == (0, [])


def test_a_tree_gives_the_same_results_through_the_quick_path_as_through_the_codemod(
    tmp_path: Path,
) -> None:
    """Files the pre-check rules out and files it does not, mixed in one tree: the CLI's
    lines, summary and report are those of the codemod run on every file."""
    import json

    (tmp_path / "a_plain.py").write_text("x = 1\n")
    (tmp_path / "b_tool.py").write_text(
        'import json\nprint(json.dumps({"type": "success", "content": "hello"}))\n'
    )
    (tmp_path / "c_skip.py").write_text("# jp-migrate: skip\nprint({'type': 'success'})\n")
    (tmp_path / "d_broken.py").write_text("def broken(:\n")
    (tmp_path / "e_plain.py").write_text("import sys\n")
    result = run_cli("tools", ".", "--check", "--report", "json", cwd=tmp_path)
    assert result.returncode == 2  # d_broken.py
    report = json.loads(result.stdout)
    assert [(f["path"], f["status"]) for f in report["tools"]] == [
        ("a_plain.py", "unchanged"),
        ("b_tool.py", "migrated"),
        ("c_skip.py", "skipped"),
        ("d_broken.py", "error"),
        ("e_plain.py", "unchanged"),
    ]
    from jp_migrate.codemod.api import ToolsOptions, migrate_tools

    direct = migrate_tools([tmp_path], ToolsOptions(write=False))
    assert [(Path(f.path).name, f.status, f.message) for f in direct] == [
        (f["path"], f["status"], f["message"]) for f in report["tools"]
    ]
    plain = run_cli("tools", ".", "--check", cwd=tmp_path)
    assert plain.returncode == 2
    assert plain.stderr.splitlines()[-1] == (
        "5 files: 1 would be rewritten, 0 with unhandled sites, 1 error, 1 skipped"
    )


# `jp-migrate adapt -- CMD` runs in front of every call of a tool: what it imports is its
# overhead. None of these is used on its path (typing: annotations only; pathlib brings
# urllib.parse and ipaddress; runpy and importlib.util: `python -m`, not the console script).
ADAPT_NEVER = {
    *HEAVY,
    "click",
    "typing",
    "pathlib",
    "urllib",
    "ipaddress",
    "contextlib",
    "subprocess",
    "dataclasses",
    "inspect",
    "runpy",
    "importlib.util",
    "hashlib",
}

# As the console script starts it (`re` first), the modules the adapter adds to a fresh
# interpreter's, printed once it has exited with the tool's status.
ADAPT_PROBE = """
import atexit, sys
started = set(sys.modules)
atexit.register(lambda: print(sorted(set(sys.modules) - started), file=sys.stderr))
sys.argv = ["jp-migrate", "adapt", "--name", "t", "--", *sys.argv[1:]]
import re
from jp_migrate.entry import main
main()
"""


@pytest.mark.parametrize(
    ("stdout", "code"),
    [
        ('{"type": "success", "content": "done"}', 0),
        ('{"type": "error", "message": "m", "trace": ["t"], "transient": true}', 3),
        ('{"content": [{"type": "text", "text": "already new"}]}', 0),
        ("raw text", 0),
        ("raw text", 1),  # the legacy host's failure text
    ],
)
def test_the_adapt_path_imports_only_what_it_uses(tmp_path: Path, stdout: str, code: int) -> None:
    tool = [sys.executable, "-c", f"import sys; print({stdout!r}); sys.exit({code})"]
    done = subprocess.run(
        [sys.executable, "-c", ADAPT_PROBE, *tool],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == code, done.stderr
    assert done.stdout.startswith('{"content":'), done.stdout  # the adapter ran to its envelope
    added = set(ast.literal_eval(done.stderr.strip().splitlines()[-1]))
    assert "jp_migrate.adapt.local" in added
    top = {name.split(".")[0] for name in added}
    assert sorted((added | top) & ADAPT_NEVER) == []


def test_the_adapt_probe_sees_what_a_path_imports(tmp_path: Path) -> None:
    """The probe above can fail: `--provenance` loads hashlib, which it lists."""
    tool = [sys.executable, "-c", "print('x')"]
    probe = ADAPT_PROBE.replace('"--name", "t",', '"--provenance",')
    done = subprocess.run(
        [sys.executable, "-c", probe, *tool],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "hashlib" in ast.literal_eval(done.stderr.strip().splitlines()[-1])
