#!/usr/bin/env python3
"""Tiny todo list: list / add / done. Reads data/todo.json, writes scratch/todo.json."""
import json
import sys

TYPE = "type"
SUCCESS = "success"
ERROR = "error"
CONTENT = "content"
MESSAGE = "message"

SOURCE = "data/todo.json"
TARGET = "scratch/todo.json"


def reply_ok(text):
    return {TYPE: SUCCESS, CONTENT: text}


def reply_err(text, *trace):
    return {TYPE: ERROR, MESSAGE: text, "trace": list(trace), "transient": False}


def render(items):
    if not items:
        return "Nothing to do."
    return "\n".join(f"[{'x' if i['done'] else ' '}] {i['id']}. {i['text']}" for i in items)


def save(db):
    import os
    os.makedirs("scratch", exist_ok=True)
    with open(TARGET, "w") as fh:
        json.dump(db, fh, indent=2)


def handle(action, args, db):
    items = db["items"]
    match action:
        case "list":
            pending = [i for i in items if not i["done"] or args.get("all")]
            return reply_ok(render(pending))
        case "add":
            text = (args.get("text") or "").strip()
            if not text:
                return reply_err("Cannot add an empty todo.")
            new = {"id": max((i["id"] for i in items), default=0) + 1, "text": text, "done": False}
            items.append(new)
            save(db)
            return reply_ok(f"Added #{new['id']}: {text}")
        case "done":
            wanted = args.get("id")
            for item in items:
                if item["id"] == wanted:
                    if item["done"]:
                        return reply_err(f"#{wanted} is already done.")
                    item["done"] = True
                    save(db)
                    return reply_ok(f"Completed #{wanted}: {item['text']}")
            return reply_err(f"No todo with id {wanted}.", f"known ids: {[i['id'] for i in items]}")
        case _:
            return reply_err(f"Unknown action {action!r}", "expected one of: list, add, done")


def main():
    call = json.loads(sys.argv[1])
    args = call["arguments"]
    with open(SOURCE) as fh:
        db = json.load(fh)
    print(json.dumps(handle(args.get("action", "list"), args, db)))


main()
