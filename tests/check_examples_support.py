"""`jp-migrate check` on a scratch copy of the bundled examples, every report format written.

Two scenarios: the example workspace as configured (its local tools' cases),
and the same with the example MCP server's tools compared against their
transitional twins (`[verify.control]`, as its `.jp-migrate.toml` describes).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from bridge_support import python_on_path
from conftest import EXAMPLES

FORMATS = {"json": "json", "markdown": "md", "junit": "xml", "sarif": "sarif", "terminal": "txt"}
MCP_TOOLS = ["delete_file", "divide", "greet", "read_snippet", "service_status"]
SCENARIOS = ("examples", "examples-mcp")


def with_mcp_twins(config: str) -> str:
    """The example config with its MCP tools verified too, each against its `_jp` twin."""
    local = 'tools = ["delete_file", "grep_notes", "service_status", "word_count"]'
    assert local in config, "the example config's [verify] tools line changed"
    names = ", ".join(f'"mcp_{m}"' for m in MCP_TOOLS)
    twins = "\n".join(f'mcp_{m} = "mcp_{m}_jp"' for m in MCP_TOOLS)
    return config.replace(local, f"{local[:-1]}, {names}]\n\n[verify.control]\n{twins}")


def examples_copy(root: Path, scenario: str) -> Path:
    """A copy of `examples/` under `root`; returns its workspace, `tools/`."""
    copy = root / "examples"
    shutil.copytree(EXAMPLES, copy, ignore=shutil.ignore_patterns("__pycache__"))
    workspace = copy / "tools"
    if scenario == "examples-mcp":
        config = workspace / ".jp-migrate.toml"
        config.write_text(with_mcp_twins(config.read_text("utf-8")), "utf-8")
    return workspace


def check_reports(
    root: Path, scenario: str, *, path_dirs: tuple[Path, ...] = ()
) -> tuple[int, str, dict[str, bytes]]:
    """Run `check --diff` in the copy's workspace with every report format; the exit code,
    stderr and each report's bytes (by format). `path_dirs` go first on PATH."""
    workspace = examples_copy(root, scenario)
    out = root / "reports"
    specs = [a for fmt, ext in FORMATS.items() for a in ("--report", f"{fmt}={out}/report.{ext}")]
    env = python_on_path()  # the example configs run `python3` (with the `mcp` SDK)
    env["PATH"] = ":".join([*map(str, path_dirs), env["PATH"]])
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "jp_migrate", "check", "--diff", *specs],
        capture_output=True,
        text=True,
        cwd=workspace,
        env=env,
        timeout=300,
        check=False,  # the caller asserts the exit code
    )
    reports = {fmt: (out / f"report.{ext}").read_bytes() for fmt, ext in FORMATS.items()}
    return proc.returncode, proc.stderr, reports


DATA = Path(__file__).resolve().parent / "data" / "reports"


def recorded(scenario: str, fmt: str) -> Path:
    return DATA / scenario / f"report.{FORMATS[fmt]}"


if __name__ == "__main__":  # rewrite the recorded reports from the current code
    import tempfile

    for name in SCENARIOS:
        with tempfile.TemporaryDirectory() as tmp:
            code, err, written = check_reports(Path(tmp), name)
            print(name, "exit", code, err)
            for fmt, data in written.items():
                recorded(name, fmt).parent.mkdir(parents=True, exist_ok=True)
                recorded(name, fmt).write_bytes(data)
