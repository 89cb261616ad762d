#!/usr/bin/env python3
"""Read one variable from a dotenv file; secrets are masked unless asked."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _reply import Reply  # noqa: E402

SECRET_HINTS = ("SECRET", "TOKEN", "PASSWORD", "KEY", "DSN")


def load(path):
    env = {}
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            raw = raw.strip()
            if raw and not raw.startswith("#") and "=" in raw:
                k, v = raw.split("=", 1)
                env[k.strip()] = v.strip().strip('"')
    return env


def mask(value):
    return value[:2] + "*" * max(len(value) - 2, 0) if value else value


parser = argparse.ArgumentParser()
parser.add_argument("name")
parser.add_argument("--file", default="data/.env")
parser.add_argument("--reveal", default="false")
opts = parser.parse_args()

try:
    env = load(opts.file)
except FileNotFoundError:
    Reply.send(Reply.error(f"{opts.file} does not exist"))
    sys.exit(0)
except UnicodeDecodeError as exc:
    Reply.send(Reply.error(f"{opts.file} is not UTF-8", str(exc)))
    sys.exit(0)

if opts.name not in env:
    Reply.send(Reply.error(f"{opts.name} is not set in {opts.file}", "variables: " + ", ".join(sorted(env))))
elif env[opts.name] == "":
    Reply.send(Reply.success(f"{opts.name} is set but empty"))
elif any(h in opts.name.upper() for h in SECRET_HINTS) and opts.reveal != "true":
    Reply.send(Reply.success(f"{opts.name}={mask(env[opts.name])} (masked)"))
else:
    Reply.send(Reply.success(f"{opts.name}={env[opts.name]}"))
