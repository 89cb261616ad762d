#!/usr/bin/env python3
"""Explain a 5-field cron expression in plain English."""
import json
import sys

FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 6))
ALIASES = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *"}


class CronError(ValueError):
    pass


def explain_field(text, name, lo, hi):
    match text.split("/"):
        case ["*"]:
            return f"every {name}"
        case ["*", step] if step.isdigit():
            return f"every {step} {name}s"
        case [value] if value.isdigit():
            if not lo <= int(value) <= hi:
                raise CronError(f"{name} {value} out of range {lo}-{hi}")
            return f"{name} {value}"
        case [rng] if "-" in rng:
            a, b = rng.split("-", 1)
            if not (a.isdigit() and b.isdigit()) or int(a) > int(b):
                raise CronError(f"bad range {rng!r} for {name}")
            return f"{name} {a} through {b}"
        case [lst] if "," in lst:
            return f"{name} in {lst.replace(',', ', ')}"
        case _:
            raise CronError(f"cannot parse {name} field {text!r}")


def main():
    expr = json.loads(sys.argv[1])["arguments"].get("expression", "").strip()
    expr = ALIASES.get(expr, expr)
    parts = expr.split()
    if len(parts) != 5:
        return dict(type="error", message=f"expected 5 fields, got {len(parts)}",
                    trace=[f"expression: {expr!r}"], transient=False)
    try:
        bits = [explain_field(p, *spec) for p, spec in zip(parts, FIELDS)]
    except CronError as e:
        return dict(type="error", message=str(e), trace=[f"expression: {expr!r}"], transient=False)
    return dict(type="success", content=f"{expr}: " + "; ".join(bits))


print(json.dumps(main()))
