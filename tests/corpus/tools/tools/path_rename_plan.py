#!/usr/bin/env python3
"""Plan a bulk rename with a regex; confirming writes a shell script to scratch/."""
import argparse
import json
import os
import re
import shlex


def plan(directory, pattern, replacement):
    rx = re.compile(pattern)
    moves = []
    for name in sorted(os.listdir(directory)):
        new = rx.sub(replacement, name)
        if new != name:
            moves.append((name, new))
    return moves


def render_plan(moves, limit=20):
    shown = [f"{a}  ->  {b}" for a, b in moves[:limit]]
    if len(moves) > limit:
        shown.append(f"... and {len(moves) - limit} more")
    return "\n".join(shown)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--find", required=True)
    ap.add_argument("--replace", default="")
    ap.add_argument("--tool", default="{}", help="the whole JP tool call, for answers")
    ns = ap.parse_args()
    answers = json.loads(ns.tool).get("answers") or {}

    result = None
    if not os.path.isdir(ns.dir):
        result = {"type": "error", "message": f"{ns.dir}: not a directory", "trace": [], "transient": False}
    else:
        try:
            moves = plan(ns.dir, ns.find, ns.replace)
        except re.error as e:
            moves = None
            result = {"type": "error", "message": "bad pattern", "trace": [str(e)], "transient": False}
        except (IndexError, KeyError) as e:
            moves = None
            result = {"type": "error", "message": "bad replacement", "trace": [f"{type(e).__name__}: {e}"], "transient": False}
        if moves is not None:
            targets = [b for _, b in moves]
            if len(set(targets)) != len(targets):
                result = {"type": "error", "message": "rename would merge files", "trace": sorted({t for t in targets if targets.count(t) > 1}), "transient": False}
            elif not moves:
                result = {"type": "success", "content": "Nothing matches; no renames needed."}
            elif "apply" not in answers:
                q = {"id": "apply"}
                q["text"] = f"Rename {len(moves)} file(s) in {ns.dir}?"
                q["pre_amble"] = render_plan(moves)
                q["default"] = True
                q["answer_type"] = "Boolean"
                result = {"type": "needs_input", "question": q}
            elif answers["apply"]:
                os.makedirs("scratch", exist_ok=True)
                with open("scratch/rename.sh", "w") as fh:
                    fh.writelines(f"mv {shlex.quote(os.path.join(ns.dir, a))} {shlex.quote(os.path.join(ns.dir, b))}\n" for a, b in moves)
                result = {"type": "success", "content": f"wrote scratch/rename.sh ({len(moves)} mv commands)"}
            else:
                result = {"type": "success", "content": "Plan only:\n" + render_plan(moves)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
