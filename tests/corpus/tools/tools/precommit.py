#!/usr/bin/env python3
"""Pre-commit gate: runs our fmt_check and commit_msg_lint tools and merges their verdicts.

Each sub-tool is run as a subprocess exactly like JP would, and its Outcome
JSON is read back.
"""
import json
import subprocess
import sys

HERE = "tools"


def run_tool(argv):
    proc = subprocess.run([sys.executable, *argv], capture_output=True, text=True)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        return {"type": "error", "message": f"{argv[0]} crashed", "trace": proc.stderr.strip().splitlines()[-3:],
                "transient": False}


def main():
    args = json.loads(sys.argv[1])["arguments"]
    files = args.get("files") or []
    message = args.get("message", "")
    if not files and not message:
        return {"type": "error", "message": "nothing to check: give files and/or a message", "trace": [], "transient": False}

    passed, failed = [], []
    for path in files:
        result = run_tool([f"{HERE}/fmt_check.py", "--path", path, "--answers", json.dumps({"fix": False})])
        if result["type"] == "error":
            failed.append(f"{path}: {result['message']}")
        elif result["content"].endswith(": clean"):
            passed.append(path)
        else:
            failed.extend(result["content"].splitlines())

    if message:
        lint = run_tool([f"{HERE}/commit_msg_lint.py", "-m", message])
        if lint["type"] == "error":
            failed.append("commit message: " + lint["message"])
            failed.extend("  " + t for t in lint["trace"])
        else:
            passed.append("commit message")

    if failed:
        return {"type": "error", "message": f"pre-commit failed ({len(failed)} finding(s))", "trace": failed,
                "transient": False}
    return {"type": "success", "content": "pre-commit passed: " + ", ".join(passed)}


if __name__ == "__main__":
    print(json.dumps(main()))
