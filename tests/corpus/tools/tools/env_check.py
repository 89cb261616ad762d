#!/usr/bin/env python3
"""Check a .env file has every variable a profile requires."""
import json
import os
import sys


def parse_env(path):
    values = {}
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            k, v = line.split("=", 1)
            values[k.strip()] = v.strip()
    return values


def describe_missing(missing, empty):
    parts = []
    if missing:
        parts.append(f"Missing: {', '.join(missing)}")
    if empty:
        parts.append(f"Set but empty: {', '.join(empty)}")
    return "\n".join(parts)


def main():
    call = json.loads(sys.argv[1])
    args, answers = call["arguments"], call.get("answers") or {}
    profile = args.get("profile", "dev")
    required_file = "data/env.required" if profile == "dev" else f"data/env.{profile}.required"
    env_file = args.get("env_file", "data/.env")

    if not os.path.exists(required_file):
        print(json.dumps({"type": "error", "message": f"unknown profile '{profile}'", "trace": [], "transient": False}))
        return
    env = parse_env(env_file)
    with open(required_file) as fh:
        required = [l.strip() for l in fh if l.strip()]
    missing = [k for k in required if k not in env]
    empty = [k for k in required if k in env and env[k] == ""]

    if not missing and not empty:
        print(json.dumps({"type": "success", "content": f"{env_file} satisfies profile '{profile}' ({len(required)} vars)."}))
        return

    if "write_template" not in answers:
        question = {
            "id": "write_template",
            "text": f"Write a template with the {len(missing) + len(empty)} missing value(s)?",
            "pre_amble": describe_missing(missing, empty),
            "default": False,
            "answer_type": "Boolean",
        }
        print(json.dumps({"type": "needs_input", "question": question}))
        return

    if answers["write_template"]:
        os.makedirs("scratch", exist_ok=True)
        target = f"scratch/{profile}.env.template"
        with open(target, "w") as fh:
            fh.writelines(f"{k}=\n" for k in missing + empty)
        print(json.dumps({"type": "success", "content": f"Wrote {target}"}))
    else:
        print(json.dumps({"type": "error", "message": f"{env_file} is incomplete for '{profile}'",
                          "trace": describe_missing(missing, empty).splitlines(), "transient": False}))


main()
