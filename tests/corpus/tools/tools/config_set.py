#!/usr/bin/env python3
"""Set a key in an INI config; asks which section when the key is ambiguous.

The edited file is written to scratch/config/, the original is left untouched.
"""
import configparser
import json
import os
import sys

SCRATCH = os.path.join("scratch", "config")


def q_section(key, sections, current):
    opts = list(sections)
    return dict(
        id="section",
        text=f"'{key}' exists in several sections. Which one should change?",
        pre_amble="\n".join(f"[{s}] {key} = {current[s]}" for s in opts),
        answer_type=dict(Select=dict(options=opts)),
        default=opts[0],
    )


def main(call):
    args = call["arguments"]
    answers = call.get("answers") or {}
    path, key, value = args["file"], args["key"], str(args["value"])

    cfg = configparser.ConfigParser()
    if not cfg.read(path, encoding="utf-8"):
        return dict(type="error", message=f"Cannot read config {path}", trace=[], transient=False)

    holders = [s for s in cfg.sections() if cfg.has_option(s, key)]
    section = args.get("section") or answers.get("section")
    if section is None:
        if not holders:
            return dict(type="error", message=f"Key '{key}' not found; pass a section to add it.",
                        trace=["sections: " + ", ".join(cfg.sections())], transient=False)
        if len(holders) > 1:
            return {"type": "needs_input",
                    "question": q_section(key, holders, {s: cfg.get(s, key) for s in holders})}
        section = holders[0]
    if not cfg.has_section(section):
        return dict(type="error", message=f"No section [{section}] in {path}", trace=[], transient=False)

    old = cfg.get(section, key, fallback=None)
    cfg.set(section, key, value)
    os.makedirs(SCRATCH, exist_ok=True)
    target = os.path.join(SCRATCH, os.path.basename(path))
    with open(target, "w", encoding="utf-8") as fh:
        cfg.write(fh)
    change = f"{old} -> {value}" if old is not None else f"(new) {value}"
    return dict(type="success", content=f"[{section}] {key}: {change}\nwritten to {target}")


if __name__ == "__main__":
    print(json.dumps(main(json.loads(sys.argv[1]))))
