#!/usr/bin/env python3
"""Audit pinned requirements against a local advisory database (no network)."""
from __future__ import annotations

import json
import os
import sys
from typing import Literal, Optional

from pydantic import BaseModel


class Question(BaseModel):
    id: str
    text: str
    answer_type: str | dict = "Boolean"
    default: Optional[bool] = None
    pre_amble: Optional[str] = None


class Outcome(BaseModel):
    type: Literal["success", "error", "needs_input"]
    content: Optional[str] = None
    message: Optional[str] = None
    trace: Optional[list[str]] = None
    transient: Optional[bool] = None
    question: Optional[Question] = None


def vtuple(v: str):
    return tuple(int(p) for p in v.split(".") if p.isdigit())


def read_pins(path: str) -> dict[str, str]:
    pins = {}
    with open(path) as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if "==" in line:
                name, ver = line.split("==", 1)
                pins[name.lower()] = ver
    return pins


def audit(pins, advisories):
    found = []
    for name, ver in sorted(pins.items()):
        for adv in advisories.get(name, []):
            if vtuple(ver) < vtuple(adv["below"]):
                found.append(f"{name}=={ver}: {adv['id']} ({adv['severity']}), fixed in {adv['below']}")
    return found


def run(args: dict, answers: dict) -> Outcome:
    req = args.get("requirements", "data/requirements.txt")
    dev = req.replace(".txt", "-dev.txt")
    try:
        pins = read_pins(req)
        with open(args.get("db", "data/advisories.json")) as fh:
            advisories = json.load(fh)
    except FileNotFoundError as e:
        return Outcome(type="error", message=f"missing input: {e.filename}", trace=[], transient=False)
    except json.JSONDecodeError as e:
        return Outcome(type="error", message="advisory database is corrupt", trace=[str(e)], transient=False)

    if os.path.exists(dev):
        if "include_dev" not in answers:
            q = Question(id="include_dev", text=f"Also audit {os.path.basename(dev)}?", default=True)
            return Outcome(type="needs_input", question=q)
        if answers["include_dev"]:
            pins.update(read_pins(dev))

    found = audit(pins, advisories)
    if not found:
        return Outcome(type="success", content=f"{len(pins)} packages audited, no known vulnerabilities.")
    return Outcome(type="success", content=f"{len(found)} vulnerable of {len(pins)} packages:\n" + "\n".join(found))


if __name__ == "__main__":
    call = json.loads(sys.argv[1])
    outcome = run(call.get("arguments") or {}, call.get("answers") or {})
    print(outcome.model_dump_json(exclude_none=True))
