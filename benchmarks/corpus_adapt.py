"""The blind tool corpus behind the adapters: every tool and server adapted, then `verify`.

    python benchmarks/corpus_adapt.py [CORPUS] [--jobs 2] [--python PY]
    python benchmarks/corpus_adapt.py tests/corpus/adapt   # the non-Python tools

CORPUS (default tests/corpus/tools, see corpus_tools.py) is copied twice into a
temporary directory; in the second copy `jp-migrate adapt --config` routes every
local tool (`.jp/mcp/tools/*.toml`) and every MCP server (`[providers.mcp.*]`
of `.jp/config.toml`) through the adapters, running this checkout's
`jp-migrate`. Then every tool named in cases.jsonl goes through `jp-migrate
verify`, the original read as the legacy host reads it and the adapted one as
the RFD 058 host does: each case must be a match or a named expected difference.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from corpus_tools import DEFAULT, _copy, report_verdicts


def _adapter() -> str:
    """This checkout's console script (else `python -m jp_migrate` as one command line)."""
    beside = Path(sys.executable).with_name("jp-migrate")
    script = str(beside) if beside.is_file() else shutil.which("jp-migrate")
    return script or f"{sys.executable} -m jp_migrate"


def adapt_everything(workspace: Path) -> None:
    """Route every local tool and MCP server of `workspace` through the adapters."""
    tools = sorted(p.stem for p in (workspace / ".jp" / "mcp" / "tools").glob("*.toml"))
    config = (workspace / ".jp" / "config.toml").read_text("utf-8")
    servers = re.findall(r"^\[providers\.mcp\.([\w-]+)\]", config, re.MULTILINE)
    chosen = [a for t in tools for a in ("--tool", t)] + [
        a for s in servers for a in ("--server", s)
    ]
    adapter = _adapter()
    command = [
        *adapter.split(" "),
        "adapt",
        "--config",
        str(workspace),
        "--adapter-command",
        adapter,
    ]
    done = subprocess.run([*command, *chosen], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"error: adapt --config exited {done.returncode}: {done.stderr.strip()}")
    print(f"adapted {len(tools)} local tools and {len(servers)} MCP servers")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--python",
        type=Path,
        default=Path(sys.executable),
        help="the interpreter the tools run with (the corpus's servers need mcp<2)",
    )
    args = parser.parse_args()
    corpus: Path = args.corpus.resolve()
    with tempfile.TemporaryDirectory(prefix="jp-adapt-corpus-") as tmp:
        before = _copy(corpus, Path(tmp) / "before" / corpus.name)
        after = _copy(corpus, Path(tmp) / "after" / corpus.name)
        for copy in (before, after):  # a corpus with compiled tools builds them first
            if (copy / "tools" / "build.sh").is_file():
                subprocess.run(["sh", "tools/build.sh"], cwd=copy, check=True, capture_output=True)
        adapt_everything(after)
        return report_verdicts(before, after, args.jobs, args.python)


if __name__ == "__main__":
    sys.exit(main())
