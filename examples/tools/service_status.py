#!/usr/bin/env python3
"""service_status: is one of the workspace's services up?

Class-based. A service that is down is a *transient* error (JP may retry);
an unknown service is a permanent one. JP runs it as
`python3 service_status.py '{{tool}}'`.
"""

import sys
from json import dumps as emit
from json import loads
from typing import Any

SERVICES: dict[str, dict[str, Any]] = {
    "web": {"up": True, "latency_ms": 12, "version": "2.4.1"},
    "db": {"up": False, "since": "03:12 UTC", "last_error": "connection refused"},
    "queue": {"up": True, "latency_ms": 40, "version": "1.0.0"},
}


class ServiceStatus:
    """Looks services up in a registry and answers with a legacy Outcome."""

    def __init__(self, registry: dict[str, dict[str, Any]]) -> None:
        self.registry = registry

    def describe(self, name: str, service: dict[str, Any]) -> str:
        return f"{name} is up (version {service['version']}, {service['latency_ms']} ms)"

    def down(self, name: str, service: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "error",
            "message": f"{name} is down since {service['since']}",
            "trace": [service["last_error"], f"checked {name}"],
            "transient": True,  # worth retrying later
        }

    def run(self, arguments: dict[str, Any]) -> dict[str, Any]:
        name = str(arguments.get("service", ""))
        service = self.registry.get(name)
        if service is None:
            known = ", ".join(sorted(self.registry))
            return {'type': 'error', 'message': f"unknown service {name!r} (known: {known})", 'trace': [], 'transient': False}
        if not service["up"]:
            return self.down(name, service)
        return {'type': 'success', 'content': self.describe(name, service)}


def main(argv: list[str]) -> int:
    context = loads(argv[1]) if len(argv) > 1 else {}
    outcome = ServiceStatus(SERVICES).run(context.get("arguments", {}))
    sys.stdout.write(emit(outcome) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
