#!/usr/bin/env python3
"""Basic statistics (count, sum, mean, min, max) for a numeric CSV column."""
import asyncio
import csv
import json
import statistics
import sys


def numeric_columns(rows, header):
    cols = []
    for name in header:
        vals = [r[name] for r in rows if r[name]]
        try:
            [float(v) for v in vals]
        except ValueError:
            continue
        if vals:
            cols.append(name)
    return cols


async def load(path):
    def _read():
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            return reader.fieldnames or [], list(reader)
    return await asyncio.to_thread(_read)


async def main(call):
    args, answers = call["arguments"], call.get("answers", {})
    path = args.get("file", "data/sales.csv")
    try:
        header, rows = await load(path)
    except FileNotFoundError:
        return {"type": "error", "message": f"no such CSV: {path}", "trace": [], "transient": False}
    if not rows:
        return {"type": "error", "message": f"{path} has no data rows", "trace": [], "transient": False}

    column = args.get("column") or answers.get("column")
    candidates = numeric_columns(rows, header)
    if not column:
        return {"type": "needs_input",
                "question": {"id": "column", "text": f"Which column of {path}?",
                             "answer_type": {"Select": {"options": candidates}},
                             "default": candidates[0] if candidates else None}}
    if column not in header:
        return {"type": "error", "message": f"unknown column {column!r}", "trace": [f"columns: {header}"],
                "transient": False}
    if column not in candidates:
        return {"type": "error", "message": f"column {column!r} is not numeric", "trace": [], "transient": False}

    values = [float(r[column]) for r in rows if r[column]]
    skipped = len(rows) - len(values)
    lines = [f"column: {column}", f"count: {len(values)}", f"sum: {sum(values):.2f}",
             f"mean: {statistics.fmean(values):.2f}", f"min: {min(values):g}", f"max: {max(values):g}"]
    if skipped:
        lines.append(f"skipped {skipped} empty cell(s)")
    return {"type": "success", "content": "\n".join(lines)}


if __name__ == "__main__":
    outcome = asyncio.run(main(json.loads(sys.argv[1])))
    print(json.dumps(outcome))
