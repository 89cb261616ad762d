#!/usr/bin/env python3
"""List or show hosts from an OpenSSH client config."""
import json
import sys


class SshConfigTool:
    name = "ssh_config_hosts"

    def __init__(self, arguments):
        self.path = arguments.get("config", "data/etc/ssh_config")
        self.host = arguments.get("host")

    def parse(self):
        hosts, current = {}, None
        with open(self.path) as fh:
            for raw in fh:
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                key, _, value = line.partition(" ")
                if key.lower() == "host":
                    current = value.strip()
                    hosts[current] = {}
                elif current is not None:
                    hosts[current][key] = value.strip()
        return hosts

    def success(self, text):
        return {"type": "success", "content": text}

    def error(self, text, trace=None):
        return {"type": "error", "message": text, "trace": trace or [], "transient": False}

    def run(self):
        try:
            hosts = self.parse()
        except FileNotFoundError:
            return self.error(f"ssh config not found: {self.path}")
        concrete = [h for h in hosts if "*" not in h and "?" not in h]
        if not self.host:
            return self.success("\n".join(concrete) if concrete else "no hosts defined")
        if self.host not in hosts:
            return self.error(f"no Host entry for {self.host}", [f"known: {', '.join(concrete)}"])
        opts = dict(hosts.get("*", {}))
        opts.update(hosts[self.host])
        via = f" (via {opts['ProxyJump']})" if "ProxyJump" in opts else ""
        body = "\n".join(f"  {k} {v}" for k, v in sorted(opts.items()))
        return self.success(f"Host {self.host}{via}\n{body}")


if __name__ == "__main__":
    tool = SshConfigTool(json.loads(sys.argv[1]).get("arguments", {}))
    print(json.dumps(tool.run()))
