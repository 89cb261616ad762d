#!/usr/bin/env python3
"""Check that numbered SQL migrations form a gap-free, duplicate-free sequence."""
import json
import os
import re
import sys

NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class SequenceError(Exception):
    def __init__(self, msg, problems):
        super().__init__(msg)
        self.problems = problems


def check(directory):
    numbers = {}
    for f in sorted(os.listdir(directory)):
        m = NAME.match(f)
        if m:
            numbers.setdefault(int(m.group(1)), []).append(f)
    if not numbers:
        raise SequenceError("no migrations found", [])
    problems = []
    for n, files in sorted(numbers.items()):
        if len(files) > 1:
            problems.append(f"duplicate number {n:04d}: {', '.join(files)}")
    expected = range(1, max(numbers) + 1)
    problems += [f"missing {n:04d}" for n in expected if n not in numbers]
    if problems:
        raise SequenceError(f"{len(problems)} problem(s) in {directory}", problems)
    return max(numbers)


args = json.loads(sys.argv[1])["arguments"]
directory = args.get("dir", "data/migrations/app")
res = {}
try:
    if os.path.exists(os.path.join(directory, ".migrate.lock")):
        raise BlockingIOError(f"{directory}/.migrate.lock")
    head = check(directory)
    res["type"] = "success"
    res["content"] = f"{head} migrations, sequence OK (head {head:04d})"
except BlockingIOError as exc:
    res["type"] = "error"
    res["message"] = "a migration is running right now"
    res["trace"] = [f"lock held: {exc}"]
    res["transient"] = True
except SequenceError as exc:
    res["type"] = "error"
    res["message"] = str(exc)
    res["trace"] = exc.problems
    res["transient"] = False
except FileNotFoundError:
    res["type"] = "error"
    res["message"] = f"{directory} does not exist"
    res["trace"] = []
    res["transient"] = False
print(json.dumps(res))
