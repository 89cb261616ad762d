#!/usr/bin/env python3
"""Resolve a name using a hosts file only (no DNS)."""
import ipaddress
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _reply import Reply  # noqa: E402


def parse_hosts(path):
    table = {}
    with open(path) as fh:
        for line in fh:
            line = line.split("#", 1)[0].split()
            if len(line) < 2:
                continue
            addr, names = line[0], line[1:]
            for n in names:
                table.setdefault(n.lower(), []).append(addr)
    return table


def main():
    call = json.loads(sys.argv[1])
    args, answers = call["arguments"], call.get("answers") or {}
    name = args.get("name", "").lower()
    path = args.get("hosts_file", "data/etc/hosts")

    if not os.path.exists(path):
        return Reply.error(f"hosts file {path} not found")
    table = parse_hosts(path)
    addrs = table.get(name)
    if not addrs:
        close = sorted(n for n in table if n.startswith(name[:2]))
        return Reply.error(f"{name} is not in {path}", *(f"did you mean {c}?" for c in close[:3]))
    if len(addrs) == 1:
        return Reply.success(f"{name} -> {addrs[0]}")

    family = answers.get("family")
    if family is None:
        return Reply.select("family", f"{name} has {len(addrs)} addresses. Which family?", ["IPv4", "IPv6", "both"], "both")
    want = {"IPv4": 4, "IPv6": 6}.get(family)
    picked = [a for a in addrs if want is None or ipaddress.ip_address(a).version == want]
    if not picked:
        return Reply.error(f"{name} has no {family} address")
    return Reply.success("\n".join(f"{name} -> {a}" for a in picked))


if __name__ == "__main__":
    Reply.send(main())
