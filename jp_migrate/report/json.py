"""The JSON report: the shipped `report` schema, deterministic bytes for the same findings."""

from __future__ import annotations

import json

from jp_migrate.contract.report import Report
from jp_migrate.report.totals import normalize


def render_json(report: Report) -> str:
    """Pretty JSON of the normalized report; `timings` appears only when the run recorded them."""
    data = normalize(report).model_dump(mode="json", exclude_none=False)
    if data.get("timings") is None:
        data.pop("timings", None)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
