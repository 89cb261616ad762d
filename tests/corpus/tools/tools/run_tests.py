#!/usr/bin/env python3
"""Run a unittest suite in a subprocess and summarise the result."""
import asyncio
import json
import os
import re
import sys

RESULT = re.compile(r"^(FAIL|ERROR): (\S+) \((\S+)\)", re.M)
RAN = re.compile(r"^Ran (\d+) tests?", re.M)


async def run_suite(directory, pattern, timeout):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "unittest", "discover", "-s", directory, "-p", pattern,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout=timeout)
    except asyncio.TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode, err.decode()


async def main():
    args = json.loads(sys.argv[1])["arguments"]
    directory = args.get("dir", "data/testproj")
    pattern = args.get("pattern", "test_*.py")
    timeout = float(args.get("timeout", 60))

    if not os.path.isdir(directory):
        return {"type": "error", "message": f"test directory {directory} not found", "trace": [], "transient": False}
    try:
        code, report = await run_suite(directory, pattern, timeout)
    except asyncio.TimeoutError:
        return {"type": "error", "message": f"test run exceeded {timeout:g}s",
                "trace": [f"unittest discover -s {directory}"], "transient": True}

    ran = RAN.search(report)
    total = int(ran.group(1)) if ran else 0
    if total == 0:
        return {"type": "error", "message": f"no tests matched {pattern}", "trace": [], "transient": False}
    failures = [f"{kind} {name} ({where})" for kind, name, where in RESULT.findall(report)]
    if code == 0:
        return {"type": "success", "content": f"{total} tests passed."}
    return {"type": "success",
            "content": f"{len(failures)} of {total} tests failed:\n" + "\n".join(failures)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
