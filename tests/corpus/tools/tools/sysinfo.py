#!/usr/bin/env python3
"""Summarise memory, CPU, load and uptime from a /proc-like directory."""
import json
import os
import sys


class SysInfoTool:
    SECTIONS = ("memory", "cpu", "load", "uptime")

    def __init__(self, root="/proc"):
        self.root = root

    def _read(self, name):
        with open(os.path.join(self.root, name), encoding="utf-8") as fh:
            return fh.read()

    def memory(self):
        fields = {}
        for line in self._read("meminfo").splitlines():
            key, _, rest = line.partition(":")
            fields[key] = int(rest.split()[0])
        used = fields["MemTotal"] - fields["MemAvailable"]
        return f"memory: {used // 1024} MiB used of {fields['MemTotal'] // 1024} MiB"

    def cpu(self):
        models = [l.split(":", 1)[1].strip() for l in self._read("cpuinfo").splitlines() if l.startswith("model name")]
        return f"cpu: {len(models)} x {models[0]}" if models else "cpu: unknown"

    def load(self):
        one, five, fifteen = self._read("loadavg").split()[:3]
        return f"load: {one} {five} {fifteen}"

    def uptime(self):
        secs = int(float(self._read("uptime").split()[0]))
        days, rem = divmod(secs, 86400)
        return f"uptime: {days}d {rem // 3600}h {rem % 3600 // 60}m"

    def run(self, sections):
        if not os.path.isdir(self.root):
            return {"type": "error", "message": f"{self.root} is not readable", "trace": [], "transient": False}
        unknown = [s for s in sections if s not in self.SECTIONS]
        if unknown:
            return {"type": "error", "message": "Unknown section(s): " + ", ".join(unknown),
                    "trace": ["valid: " + ", ".join(self.SECTIONS)], "transient": False}
        lines = []
        for section in sections:
            try:
                lines.append(getattr(self, section)())
            except (OSError, ValueError, KeyError) as exc:
                return {"type": "error", "message": f"Could not read {section} info",
                        "trace": [type(exc).__name__ + ": " + str(exc)], "transient": True}
        return {"type": "success", "content": "\n".join(lines)}


if __name__ == "__main__":
    call = json.loads(sys.argv[1])
    a = call.get("arguments", {})
    tool = SysInfoTool(root=a.get("root", "data/fakeproc"))
    result = tool.run(a.get("sections") or list(SysInfoTool.SECTIONS))
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
