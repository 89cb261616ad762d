"""`check`'s reports on the bundled examples, byte for byte as recorded in tests/data/reports/.

The reports hold no absolute path, time or colour (paths are relative to the
run root, timings are off unless asked for), so nothing is normalised. After a
deliberate change of a report, rewrite the recorded files with
`python tests/check_examples_support.py` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from check_examples_support import FORMATS, SCENARIOS, check_reports, recorded

@pytest.mark.parametrize("scenario", SCENARIOS)
def test_check_reports_on_the_examples_are_as_recorded(tmp_path: Path, scenario: str) -> None:
    code, stderr, reports = check_reports(tmp_path, scenario)
    assert code == 1, stderr  # the examples are legacy: the store and the tools would change
    assert stderr == ""
    for fmt in FORMATS:
        expected = recorded(scenario, fmt).read_bytes()
        assert reports[fmt] == expected, f"{scenario} {fmt} report differs from {recorded(scenario, fmt)}"
