#!/usr/bin/env python3
"""Pre-release checklist: runs our other tools' checks in-process and combines them.

Imports the sibling tools as modules and reads their Outcome dicts back.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import json_query  # noqa: E402
import semver_bump  # noqa: E402


def main():
    call = json.loads(sys.argv[1])
    args, answers = call["arguments"], call.get("answers") or {}
    report = []

    bump = semver_bump.run({"file": args.get("version_file", "data/VERSION"), "kind": args.get("kind")}, answers)
    if bump["type"] == "needs_input":
        # let JP ask the user on our behalf; the answer comes back in answers
        return bump
    if bump["type"] == "error":
        return {"type": "error", "message": "version check failed: " + bump["message"],
                "trace": bump["trace"], "transient": bump["transient"]}
    report.append("version: " + bump["content"])

    name = json_query.query(args.get("manifest", "data/services.json"), "services.0.name")
    if name["type"] == "error":
        report.append("manifest: FAILED (" + name["message"] + ")")
    else:
        report.append("primary service: " + name["content"])

    failed = [line for line in report if "FAILED" in line]
    if failed:
        return {"type": "error", "message": f"{len(failed)} release check(s) failed",
                "trace": report, "transient": False}
    return {"type": "success", "content": "\n".join(report)}


if __name__ == "__main__":
    print(json.dumps(main()))
