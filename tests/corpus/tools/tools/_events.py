"""Append-only event log for our local tooling (NOT a JP tool).

Events go to scratch/events.jsonl so we can see what the tools did during a
session. Each event has a "type" key but these are our own records, unrelated
to anything JP reads.
"""
import json
import os

LOG_PATH = os.path.join("scratch", "events.jsonl")


def log_event(kind, **fields):
    event = {"type": kind, **fields}
    line = json.dumps(event, sort_keys=True)
    os.makedirs(os.path.dirname(LOG_PATH), exist_ok=True)
    with open(LOG_PATH, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    return event


def tool_started(tool, **args):
    return log_event("tool_started", tool=tool, args=args)


def tool_finished(tool, status):
    return log_event("tool_finished", tool=tool, status=status)


def describe(event):
    return json.dumps({"type": "summary", "text": f"{event['type']}: {event.get('tool', '?')}"})
