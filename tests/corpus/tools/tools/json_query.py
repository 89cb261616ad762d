#!/usr/bin/env python3
"""Query a JSON file with a dotted path like `services.0.name` or `items.*.text`."""
import json
import sys
from typing import Literal, TypedDict


class Success(TypedDict):
    type: Literal["success"]
    content: str


class Failure(TypedDict):
    type: Literal["error"]
    message: str
    trace: list[str]
    transient: bool


def failure(message: str, *trace: str) -> Failure:
    return Failure(type="error", message=message, trace=list(trace), transient=False)


def walk(node, parts, seen=""):
    if not parts:
        return [node]
    head, rest = parts[0], parts[1:]
    here = f"{seen}.{head}" if seen else head
    if head == "*":
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            raise KeyError(f"cannot expand '*' at {seen or '<root>'}")
        return [v for child in children for v in walk(child, rest, here)]
    if isinstance(node, list):
        if not head.isdigit() or int(head) >= len(node):
            raise KeyError(f"index {head} out of range at {here}")
        return walk(node[int(head)], rest, here)
    if isinstance(node, dict) and head in node:
        return walk(node[head], rest, here)
    raise KeyError(f"no key {head!r} at {here}")


def query(path: str, expr: str) -> Success | Failure:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except FileNotFoundError:
        return failure(f"{path}: no such file")
    except json.JSONDecodeError as e:
        return failure(f"{path} is not valid JSON", f"line {e.lineno} column {e.colno}: {e.msg}")
    try:
        values = walk(doc, [p for p in expr.split(".") if p])
    except KeyError as e:
        return failure(f"path {expr!r} not found", e.args[0])
    text = "\n".join(v if isinstance(v, str) else json.dumps(v) for v in values)
    return Success(type="success", content=text)


if __name__ == "__main__":
    args = json.loads(sys.argv[1])["arguments"]
    print(json.dumps(query(args["file"], args.get("query", ""))))
