"""`bridge import` from a server offering tools named `-rf`, `.hidden`, `...`, `..` beside
a plain one, a default and an enum holding nulls, into a workspace whose `.jp/mcp/tools`
is a link outside. Nothing outside is written; with the link gone, only the plain tools."""

import sys
from pathlib import Path

from _common import write

SERVER = """\
import json, sys

SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}}
NULLS = {
    "type": "object",
    "properties": {
        "a": {"type": "object", "default": {"x": None}},
        "b": {"type": "array", "enum": [[1, None], [2]]},
    },
}
TOOLS = [{"name": n, "description": "d", "inputSchema": SCHEMA} for n in ("-rf", ".hidden", "...", "..", "plain")]
TOOLS.append({"name": "nulls", "description": "defaults and enums holding null", "inputSchema": NULLS})
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "names", "version": "1"},
        }
    elif message["method"] == "tools/list":
        result = {"tools": TOOLS}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


def build(root: Path, outside: Path) -> dict:
    write(root / "server.py", SERVER)
    write(
        root / ".jp" / "config.toml",
        f'[providers.mcp.names]\ncommand = "{sys.executable}"\narguments = ["server.py"]\n',
    )
    (root / ".jp" / "mcp").mkdir()
    (root / ".jp" / "mcp" / "tools").symlink_to(outside, target_is_directory=True)
    plain = ".jp/mcp/tools/plain.toml"
    return {
        "description": __doc__,
        "commands": [
            {"argv": ["bridge", "import", "--mcp", "names"], "exit": [2]},
            {"argv": ["bridge", "import", "--mcp", "names", "--force"], "exit": [2]},
            {"remove": ".jp/mcp/tools"},
            {"argv": ["bridge", "import", "--mcp", "names"], "exit": [2], "files": [plain]},
        ],
    }
