#!/usr/bin/env python3
# Turn a `git log --oneline` dump into a grouped changelog section.
# Key-by-key outcome building: `out` is filled in by whichever branch runs.
import argparse
import json
import re

CONVENTIONAL = re.compile(r"^(?P<sha>[0-9a-f]{7,})\s+(?P<kind>\w+)(\((?P<scope>[^)]+)\))?(?P<bang>!)?:\s*(?P<subject>.+)$")
HEADINGS = {"feat": "Features", "fix": "Bug fixes", "docs": "Documentation", "refactor": "Refactoring"}


def parse(lines):
    groups, skipped = {}, []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        m = CONVENTIONAL.match(line)
        if not m:
            skipped.append(line)
            continue
        kind = m["kind"]
        if kind not in HEADINGS:
            continue
        scope = f"**{m['scope']}**: " if m["scope"] else ""
        groups.setdefault(kind, []).append(f"- {scope}{m['subject']} ({m['sha']})")
    return groups, skipped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--version", default="Unreleased")
    args = ap.parse_args()

    out = {}
    try:
        with open(args.log, encoding="utf-8") as fh:
            groups, skipped = parse(fh.readlines())
    except FileNotFoundError:
        out["type"] = "error"
        out["message"] = f"git log file {args.log!r} does not exist"
        out["trace"] = ["run `git log --oneline > FILE` first"]
        out["transient"] = False
    else:
        if not groups:
            out["type"] = "error"
            out["message"] = "No conventional commits found in the log."
            out["trace"] = skipped[:5]
            out["transient"] = False
        else:
            version = "Unreleased" if args.version in ("", "null") else args.version
            body = [f"## {version}"]
            for kind, heading in HEADINGS.items():
                if kind in groups:
                    body.append(f"\n### {heading}")
                    body.extend(groups[kind])
            if skipped:
                body.append(f"\n_{len(skipped)} non-conventional commit(s) skipped._")
            out["type"] = "success"
            out["content"] = "\n".join(body)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
