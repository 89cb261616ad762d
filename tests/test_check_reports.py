"""`check` on the bundled examples: its reports byte for byte as recorded in tests/data/reports/,
and one MCP server per worker and side.

The reports hold no absolute path, time or colour (paths are relative to the
run root, timings are off unless asked for), so nothing is normalised. After a
deliberate change of a report, rewrite the recorded files with
`python tests/check_examples_support.py` and review the diff.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from check_examples_support import FORMATS, SCENARIOS, check_reports, recorded

JOBS = 2  # the example config's `jobs`


def _spawn_logger(directory: Path) -> Path:
    """A `python3` that notes every MCP server started (the example server's script)
    in `directory/servers.log`, then is this interpreter."""
    log = directory / "servers.log"
    wrapper = directory / "python3"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *server.py*) echo "$$" >> {shlex.quote(str(log))};; esac\n'
        f'exec {shlex.quote(sys.executable)} "$@"\n'
    )
    wrapper.chmod(0o755)
    log.touch()
    return log


@pytest.fixture(scope="module", params=SCENARIOS)
def run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, int, str, dict[str, bytes], int]:
    scenario: str = request.param
    root = tmp_path_factory.mktemp(scenario)
    (root / "bin").mkdir()
    log = _spawn_logger(root / "bin")
    code, stderr, reports = check_reports(root, scenario, path_dirs=(root / "bin",))
    return scenario, code, stderr, reports, len(log.read_text().splitlines())


def test_check_reports_on_the_examples_are_as_recorded(
    run: tuple[str, int, str, dict[str, bytes], int],
) -> None:
    scenario, code, stderr, reports, _ = run
    assert code == 1, stderr  # the examples are legacy: the store and the tools would change
    assert stderr == ""
    for fmt in FORMATS:
        expected = recorded(scenario, fmt).read_bytes()
        assert reports[fmt] == expected, (
            f"{scenario}: {fmt} report differs from {recorded(scenario, fmt)}"
        )


def test_check_starts_one_mcp_server_per_worker_and_side(
    run: tuple[str, int, str, dict[str, bytes], int],
) -> None:
    scenario, _, _, _, servers = run
    if scenario == "examples":
        assert servers == 0  # the example config verifies its local tools only
    else:  # ten MCP cases, each through the transitional and the migrated server
        assert 2 <= servers <= 2 * JOBS, f"{servers} MCP servers started"
