"""Which of the files given import which (`import tool`, `from _replies import ok as good`).

Only sibling modules count: a `.py` file in the same directory, imported by its
name (tools put their own directory on `sys.path`). Read with `ast`, which is
quick; a file that does not parse imports nothing here (the codemod reports it).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Imported:
    local: str  # the name bound in the importer: `ok`, or the module's `semver_bump`
    target: Path  # the sibling file
    function: str | None  # `from m import f`: f; `import m`: None (its functions are `m.f`)


def sibling_imports(files: Sequence[Path], sources: dict[Path, str]) -> dict[Path, list[Imported]]:
    by_dir: dict[Path, dict[str, Path]] = {}
    for path in files:
        if path.suffix == ".py":
            by_dir.setdefault(path.parent, {})[path.stem] = path
    out: dict[Path, list[Imported]] = {}
    for path in files:
        siblings = by_dir.get(path.parent, {})
        source = sources.get(path)
        if source is None or len(siblings) < 2 or "import" not in source:
            continue
        if not any(name in source for name in siblings if siblings[name] != path):
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the codemod reports it when it reaches the file
        found: list[Imported] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = siblings.get(alias.name)
                    if target is not None and target != path:
                        found.append(Imported(alias.asname or alias.name, target, None))
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                target = siblings.get(node.module)
                if target is None or target == path:
                    continue
                found.extend(
                    Imported(alias.asname or alias.name, target, alias.name)
                    for alias in node.names
                    if alias.name != "*"
                )
        if found:
            out[path] = found
    return out
