#!/usr/bin/env python3
"""Report a local service's state from the supervisor's status file."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _reply import Reply  # noqa: E402


def status_of(services, name, answers):
    svc = services[name]
    state = svc["state"]
    if state == "running":
        return Reply.success(f"{name} is running (pid {svc['pid']}, {svc['restarts']} restarts)")
    if state == "starting":
        return Reply.error(f"{name} is still starting", f"restarts so far: {svc['restarts']}", transient=True)
    if state == "crashed":
        return Reply.error(f"{name} crashed after {svc['restarts']} restarts", svc.get("last_error", "unknown error"))
    # stopped: offer what to do about it
    action = answers.get("action")
    if action is None:
        return Reply.select("action", f"{name} is stopped. What next?", ["leave it", "show start command"], "leave it")
    if action == "show start command":
        return Reply.success(f"supervisorctl start {name}")
    return Reply.success(f"{name} left stopped")


def main():
    call = json.loads(sys.argv[1])
    args = call.get("arguments", {})
    path = args.get("status_file", "data/status.json")
    try:
        with open(path) as fh:
            services = json.load(fh)["services"]
    except FileNotFoundError:
        return Reply.error("supervisor status file missing; is supervisord running?", path, transient=True)
    name = args.get("service", "")
    if name not in services:
        return Reply.error(f"unknown service {name!r}", "known: " + ", ".join(sorted(services)))
    return status_of(services, name, call.get("answers") or {})


Reply.send(main())
