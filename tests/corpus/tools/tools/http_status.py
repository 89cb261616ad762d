#!/usr/bin/env python3
"""Explain an HTTP status code (offline, from the stdlib's table)."""
import http
import json
import sys

HINTS = {
    401: "missing or bad credentials; check the Authorization header",
    403: "authenticated but not allowed",
    404: "wrong URL or the resource was deleted",
    429: "rate limited; honour Retry-After",
    502: "the upstream server gave a bad answer",
    503: "service down or overloaded; retry later",
}


def classify(code):
    return {1: "informational", 2: "success", 3: "redirect", 4: "client error", 5: "server error"}.get(code // 100)


def main():
    args = json.loads(sys.argv[1]).get("arguments", {})
    raw = str(args.get("code", "")).strip()
    if not raw.isdigit():
        return dict(type="error", message=f"{raw!r} is not a number", trace=[], transient=False)
    code = int(raw)
    try:
        status = http.HTTPStatus(code)
    except ValueError:
        kind = classify(code)
        if kind is None:
            return dict(type="error", message=f"{code} is outside 100-599", trace=[], transient=False)
        return dict(type="success", content=f"{code}: unregistered {kind} status")

    text = f"{code} {status.phrase} ({classify(code)}): {status.description}"
    extra = dict(content=text + (f"\nhint: {HINTS[code]}" if code in HINTS else ""))
    return {"type": "success", **extra}


sys.stdout.write(json.dumps(main()) + "\n")
