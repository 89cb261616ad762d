#!/usr/bin/env python3
"""List a project's dependencies from pyproject.toml, optionally with extras."""
import json
import re
import sys
import tomllib
from dataclasses import asdict, dataclass, field


@dataclass
class Success:
    content: str
    type: str = "success"


@dataclass
class Error:
    message: str
    trace: list[str] = field(default_factory=list)
    transient: bool = False
    type: str = "error"


def name_of(req: str) -> str:
    return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]


def describe(path: str, extras: list[str]):
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        return Error(f"{path} does not exist")
    except tomllib.TOMLDecodeError as e:
        return Error(f"{path} is not valid TOML", [str(e)])

    project = data.get("project")
    if project is None:
        return Error(f"{path} has no [project] table", ["is this a poetry or setuptools-only project?"])
    deps = list(project.get("dependencies", []))
    optional = project.get("optional-dependencies", {})
    unknown = [e for e in extras if e not in optional]
    if unknown:
        return Error(f"unknown extra(s): {', '.join(unknown)}", [f"available: {', '.join(sorted(optional))}"])

    lines = [f"{project.get('name', '?')} {project.get('version', '')}".strip()]
    lines += [f"  {name_of(d)}  ({d})" if name_of(d) != d else f"  {d}" for d in deps]
    for extra in extras:
        lines.append(f"[{extra}]")
        lines += [f"  {d}" for d in optional[extra]]
    return Success("\n".join(lines))


if __name__ == "__main__":
    a = json.loads(sys.argv[1])["arguments"]
    result = describe(a.get("path", "data/pyproject.toml"), a.get("extras") or [])
    print(json.dumps(asdict(result)))
