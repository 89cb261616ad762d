from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import EXAMPLES, REPO, run_benchmark


def test_version_and_help(cli):
    assert cli("--version").stdout.strip() == "jp-migrate, version 0.1.0"
    out = cli("--help")
    assert out.returncode == 0
    for name in ("convert", "schema", "rules"):
        assert name in out.stdout
    assert cli("-h").stdout == out.stdout


def test_unknown_command_is_a_usage_error(cli):
    out = cli("frobnicate")
    assert out.returncode == 2
    assert "No such command" in out.stderr and "Traceback" not in out.stderr


HEAVY = ("pydantic", "libcst", "mcp", "jsonschema", "rich", "pygments", "minijinja", "orjson")


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["rules", "--help"]])
def test_help_and_version_do_not_import_heavy_libraries(args: list[str]) -> None:
    probe = (
        "import sys\n"
        "from jp_migrate.cli import main\n"
        f"sys.argv = ['jp-migrate', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=60, check=False)
    assert done.stderr.strip().splitlines()[-1] == "[]"


def test_convert_examples(cli):
    out = cli("convert", str(EXAMPLES / "outcomes"), "--compact")
    assert out.returncode == 0, out.stderr
    envelopes = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(envelopes) == len(list((EXAMPLES / "outcomes").glob("*.json")))
    assert all(isinstance(e["content"], list) for e in envelopes)


def test_convert_stdin(cli):
    out = cli("convert", "-", "--compact", input='{"type": "success", "content": "grüß"}')
    assert (out.returncode, out.stdout) == (0, '{"content": [{"type": "text", "text": "grüß"}]}\n')


def test_convert_bad_input_is_one_line(cli):
    out = cli("convert", "-", input='{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": {"Select": {}}}}')
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "error: <stdin>: question.answer_type.Select.options: not a valid Outcome: Field required"
    ]
    assert "Traceback" not in out.stderr


def test_startup_benchmark_runs() -> None:
    # a smoke test of the script only; the real figure is measured with the default 30 runs
    done = run_benchmark(
        "bench_startup.py", "-n", "2", "--limit", "100", "--command-limit", "100", timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "import click: median " in lines[0]
    assert "--help: median " in lines[1]
    assert "conversations ws --check: median " in lines[2]
    assert "tools tool.py --check: median " in lines[3]
    assert all(": ok" in line and "ratio " in line for line in lines[1:4])
    assert lines[-1] == "all within their limits"


def test_startup_benchmark_fails_over_the_limit() -> None:
    done = run_benchmark(
        "bench_startup.py", "-n", "1", "--limit", "100", "--command-limit", "0.01", timeout=120
    )
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[1].endswith(": ok") and lines[2].endswith(": TOO SLOW")
    assert lines[-1] == "TOO SLOW"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["schema"], ["rules", "list"], ["schema", "report"]])
def test_output_that_cannot_be_written_is_one_line(args: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "jp_migrate", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == "error: No space left on device\n"
