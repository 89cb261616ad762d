"""The JSON report: the shipped `report` schema, deterministic bytes for the same findings."""

from __future__ import annotations

import json

from jp_migrate.contract.report import Report
from jp_migrate.report.totals import normalize


def render_json(report: Report) -> str:
    """Pretty JSON of the normalized report; `timings` appears only when the run recorded them,
    a tool file's `line` and `column` only for a syntax error."""
    data = normalize(report).model_dump(mode="json", exclude_none=False)
    if data.get("timings") is None:
        data.pop("timings", None)
    for tool in data.get("tools") or []:
        for key in ("line", "column"):
            if tool[key] is None:
                del tool[key]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
