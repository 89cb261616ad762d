#!/usr/bin/env python3
"""Convert between common units (length, data size, temperature)."""
import json
import sys

KIND_OK = "success"
KIND_ERR = "error"

FACTORS = {
    "length": {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254, "ft": 0.3048, "mi": 1609.344},
    "data": {"B": 1, "KB": 1000, "MB": 1000**2, "GB": 1000**3, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3},
}


def write(obj):
    sys.stdout.write(json.dumps(obj, sort_keys=True))
    sys.stdout.write("\n")


def temperature(value, src, dst):
    to_c = {"C": lambda v: v, "F": lambda v: (v - 32) * 5 / 9, "K": lambda v: v - 273.15}
    from_c = {"C": lambda v: v, "F": lambda v: v * 9 / 5 + 32, "K": lambda v: v + 273.15}
    return from_c[dst](to_c[src](value))


def convert(value, src, dst):
    if src in "CFK" and dst in "CFK" and len(src) == len(dst) == 1:
        return temperature(value, src, dst)
    for table in FACTORS.values():
        if src in table and dst in table:
            return value * table[src] / table[dst]
    raise KeyError((src, dst))


args = json.loads(sys.argv[1])["arguments"]
try:
    value = float(args["value"])
except (KeyError, TypeError, ValueError):
    write({"type": KIND_ERR, "message": f"value must be a number, got {args.get('value')!r}", "trace": [], "transient": False})
    sys.exit(0)

src, dst = args.get("from", ""), args.get("to", "")
try:
    result = convert(value, src, dst)
except KeyError:
    known = sorted(u for t in FACTORS.values() for u in t) + ["C", "F", "K"]
    write({"type": KIND_ERR, "message": f"cannot convert {src} to {dst}", "trace": ["known units: " + " ".join(known)], "transient": False})
else:
    write({"type": KIND_OK, "content": f"{value:g} {src} = {round(result, 4):g} {dst}"})
