"""Tiny helpers so every tool answers JP the same way.

Usage:
    sys.path.insert(0, os.path.dirname(__file__))
    from _replies import ok, fail, ask
"""
import json
import sys


def _emit(obj):
    print(json.dumps(obj))
    return obj


def ok(text):
    return _emit({"type": "success", "content": text})


def fail(msg, transient=False, trace=()):
    return _emit({
        "type": "error",
        "message": msg,
        "trace": [str(t) for t in trace],
        "transient": transient,
    })


def ask(qid, text, kind="Boolean", options=None, default=None, pre_amble=None):
    if kind == "Select":
        answer_type = {"Select": {"options": list(options or [])}}
    else:
        answer_type = kind
    return _emit({
        "type": "needs_input",
        "question": {
            "id": qid,
            "text": text,
            "pre_amble": pre_amble,
            "answer_type": answer_type,
            "default": default,
        },
    })


def load_call():
    """Parse the '{{tool}}' blob JP passes as argv[1]."""
    if len(sys.argv) < 2:
        return {}, {}
    call = json.loads(sys.argv[1])
    return call.get("arguments") or {}, call.get("answers") or {}
