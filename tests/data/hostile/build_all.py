#!/usr/bin/env python3
"""Build every hostile scenario: python3 build_all.py OUT [NAME ...]

Each scenario scenarios/<name>.py is built into OUT/<name>/root and OUT/<name>/outside;
its returned dict is written to OUT/<name>/scenario.json (with "name" and default "commands").
Exit status 1 if any build raised. Stdlib only.
"""
from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import sys
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_COMMANDS = [["conversations", "."], ["rollback", "."]]


def load(name: str):
    spec = importlib.util.spec_from_file_location("hostile_" + name, HERE / "scenarios" / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def names() -> list[str]:
    return sorted(p.stem for p in (HERE / "scenarios").glob("*.py") if not p.name.startswith("_"))


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out = pathlib.Path(argv[0]).resolve()
    wanted = argv[1:] or names()
    failures = 0
    for name in wanted:
        base = out / name
        root, outside = base / "root", base / "outside"
        root.mkdir(parents=True, exist_ok=False)
        outside.mkdir(parents=True, exist_ok=False)
        t0 = time.monotonic()
        try:
            info = load(name).build(root, outside)
            assert isinstance(info, dict) and isinstance(info.get("description"), str)
            for k in ("expect_migrated", "expect_untouched"):
                assert isinstance(info.get(k), list), k
            info = dict(info, name=name)
            info.setdefault("commands", DEFAULT_COMMANDS)
            with open(base / "scenario.json", "w", encoding="utf-8", errors="surrogateescape") as f:
                json.dump(info, f, indent=2, ensure_ascii=True)
                f.write("\n")
            print(f"ok   {name} ({time.monotonic() - t0:.1f}s)")
        except Exception:
            failures += 1
            print(f"FAIL {name}", file=sys.stderr)
            traceback.print_exc()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
