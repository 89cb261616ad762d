#!/usr/bin/env python3
"""System-query MCP server: load and memory from a /proc-like tree, as JP Outcomes."""
import json
from pathlib import Path

from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel

server = FastMCP(name="sysq")


class Outcome(BaseModel):
    type: str
    content: str | None = None
    message: str | None = None
    trace: list[str] | None = None
    transient: bool | None = None

    @classmethod
    def ok(cls, text: str) -> "Outcome":
        return cls(type="success", content=text)

    @classmethod
    def err(cls, text: str, *trace: str, transient: bool = False) -> "Outcome":
        return cls(type="error", message=text, trace=list(trace), transient=transient)

    def text(self) -> str:
        return self.model_dump_json(exclude_none=True)


@server.tool()
async def load_report(root: str = "data/fakeproc", warn_at: float = 1.0) -> str:
    """Load averages with a warning when the 1-minute load exceeds warn_at."""
    base = Path(root)
    if not base.is_dir():
        return Outcome.err(f"{root} is not a directory").text()
    try:
        one, five, fifteen = (float(x) for x in (base / "loadavg").read_text().split()[:3])
    except FileNotFoundError:
        return Outcome.err("loadavg not available yet", f"{root}/loadavg missing", transient=True).text()
    flag = "  <-- high" if one > warn_at else ""
    return Outcome.ok(f"1m {one:.2f}{flag}\n5m {five:.2f}\n15m {fifteen:.2f}").text()


@server.tool()
async def cpu_models(root: str = "data/fakeproc") -> str:
    """Distinct CPU model names and how many cores each."""
    path = Path(root) / "cpuinfo"
    if not path.exists():
        return json.dumps({"type": "error", "message": f"{path} not found", "trace": [], "transient": False})
    counts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            counts[model] = counts.get(model, 0) + 1
    return Outcome.ok("\n".join(f"{n} x {m}" for m, n in counts.items()) or "no model names").text()


if __name__ == "__main__":
    server.run("stdio")
