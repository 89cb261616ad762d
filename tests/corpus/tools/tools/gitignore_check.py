#!/usr/bin/env python3
"""Tell whether a path is ignored by a .gitignore, and suggest a rule if not."""
import fnmatch
import json
import os
import sys


def rules(path):
    with open(path) as fh:
        return [l.strip() for l in fh if l.strip() and not l.startswith("#")]


def matches(rule, target):
    parts = target.split("/")
    if rule.startswith("/"):
        return fnmatch.fnmatch(parts[0], rule[1:].rstrip("/"))
    if rule.endswith("/"):
        return any(fnmatch.fnmatch(p, rule[:-1]) for p in parts[:-1])
    return any(fnmatch.fnmatch(p, rule) for p in parts)


def suggestions(target):
    name = os.path.basename(target)
    root, ext = os.path.splitext(name)
    opts = [target, name]
    if ext:
        opts.append(f"*{ext}")
    if "/" in target:
        opts.append(target.split("/")[0] + "/")
    return list(dict.fromkeys(opts))


def main():
    call = json.loads(sys.argv[1])
    args, answers = call["arguments"], call.get("answers") or {}
    ignore_file = args.get("gitignore", "data/gitignore")
    target = args.get("path", "").strip("./") if args.get("path", "").startswith("./") else args.get("path", "")

    if not target:
        return dict(type="error", message="path is required", trace=[], transient=False)
    try:
        active = rules(ignore_file)
    except FileNotFoundError:
        return dict(type="error", message=f"{ignore_file} not found", trace=[], transient=False)

    hit = next((r for r in active if matches(r, target)), None)
    if hit:
        return {"type": "success", "content": f"{target} is ignored (rule: {hit})"}

    opts = suggestions(target) + ["don't ignore it"]
    choice = answers.get("rule")
    if choice is None:
        return dict(
            type="needs_input",
            question=dict(
                id="rule",
                text=f"{target} is not ignored. Add a rule?",
                answer_type=dict(Select=dict(options=opts)),
                default=opts[-1],
            ),
        )
    if choice == "don't ignore it":
        return {"type": "success", "content": f"{target} stays tracked"}
    if choice not in opts:
        return dict(type="error", message=f"{choice!r} is not one of the offered rules", trace=opts, transient=False)
    os.makedirs("scratch", exist_ok=True)
    with open("scratch/gitignore", "w") as fh:
        fh.write("\n".join(active + [choice]) + "\n")
    return {"type": "success", "content": f"added rule {choice!r}; new file at scratch/gitignore"}


print(json.dumps(main()))
