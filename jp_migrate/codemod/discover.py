"""Which files `jp-migrate tools PATH...` looks at.

A file named on the command line is taken as is (pre-commit passes files);
a directory is walked for `*.py`, honouring every `.gitignore` from the
repository root (the nearest directory with `.git`) down, and skipping VCS,
virtualenv and cache directories. A directory named explicitly is walked even
when an enclosing `.gitignore` ignores it. `--exclude GLOB` (gitignore syntax, e.g.
`tests/` or `*_pb2.py`) applies to both, relative to a base directory (the
current one, or the directory of the config file that lists the patterns), as
a `.gitignore` there would: `/gen.py` is only the base's own `gen.py`. A PATH
outside the base takes the patterns relative to itself instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pathspec

from jp_migrate.errors import JpMigrateError

ALWAYS_SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "__pycache__",
        "node_modules",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
    }
)


def _repo_root(directory: Path) -> Path | None:
    for candidate in (directory, *directory.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _read_ignore(directory: Path) -> pathspec.PathSpec | None:
    path = directory / ".gitignore"
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return _gitignore(lines)


def _gitignore(lines: Sequence[str]) -> pathspec.PathSpec:
    """A .gitignore's patterns; a line git cannot use (`!`, a trailing lone `\\`) matches nothing, as in git."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # pathspec's GitIgnorePatternError: drop just the bad lines
        return pathspec.GitIgnoreSpec.from_lines([line for line in lines if _valid(line)])


def _valid(pattern: str) -> bool:
    try:
        pathspec.GitIgnoreSpec.from_lines([pattern])
    except ValueError:
        return False
    return True


def _excludes(patterns: Sequence[str]) -> pathspec.PathSpec | None:
    if not patterns:
        return None
    for pattern in patterns:
        if not _valid(pattern):
            raise JpMigrateError(f"--exclude {pattern!r}: not a gitignore pattern")
    return pathspec.GitIgnoreSpec.from_lines(patterns)


class _Ignores:
    """The `.gitignore` files in effect in a directory: each matches paths relative to its own folder."""

    def __init__(self) -> None:
        self._cache: dict[Path, pathspec.PathSpec | None] = {}

    def spec(self, directory: Path) -> pathspec.PathSpec | None:
        if directory not in self._cache:
            self._cache[directory] = _read_ignore(directory)
        return self._cache[directory]

    def ignored(self, path: Path, is_dir: bool, chain: Sequence[Path | tuple[Path, Path]]) -> bool:
        """`chain`: .gitignore directories, or (directory, base its patterns are relative to)."""
        for link in chain:
            directory, base = link if isinstance(link, tuple) else (link, link)
            spec = self.spec(directory)
            if spec is None:
                continue
            relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            if spec.match_file(relative):
                return True
        return False


def _chain(directory: Path) -> list[Path]:
    """`directory` and its parents up to the repository root (or just itself outside a repository)."""
    root = _repo_root(directory)
    if root is None:
        return [directory]
    chain = [directory]
    while chain[-1] != root:
        chain.append(chain[-1].parent)
    return chain[::-1]


def discover(
    paths: Sequence[Path], exclude: Sequence[str] = (), base: Path | None = None
) -> list[Path]:
    """Python files under `paths`, sorted and without duplicates; raises for a PATH that does not exist.

    `exclude` patterns are relative to `base` (default: the current directory).
    """
    spec = _excludes(exclude)
    excluded = _Excluded(spec, Path(os.path.abspath(base or "."))) if spec is not None else None
    ignores = _Ignores()
    out: dict[Path, None] = {}
    for path in paths:
        if not path.exists():
            raise JpMigrateError(f"{path}: no such file or directory")
        if path.is_dir():
            for found in _walk(path, ignores, excluded):
                out.setdefault(found)
        elif not (excluded and excluded(path, False)):
            out.setdefault(path)
    return sorted(out)


@dataclass(frozen=True)
class _Excluded:
    """`--exclude` patterns, matched like a `.gitignore` in `base`."""

    spec: pathspec.PathSpec
    base: Path

    def __call__(self, path: Path, is_dir: bool, top: Path | None = None) -> bool:
        """`top`: the directory PATH being walked; outside the base, patterns are anchored
        there instead (as if the .gitignore sat in the directory named on the command line)."""
        absolute = Path(os.path.abspath(path))
        base = self.base
        if not absolute.is_relative_to(base):
            base = Path(os.path.abspath(top or absolute.parent))
        relative = absolute.relative_to(base).as_posix()
        return self.spec.match_file(relative + ("/" if is_dir else ""))


def _walk(top: Path, ignores: _Ignores, excluded: _Excluded | None) -> Iterator[Path]:
    resolved_top = top.resolve()
    # A directory named on the command line is walked even if an enclosing .gitignore
    # ignores it (as ruff does): that .gitignore's patterns then apply from the directory down.
    base_chain: list[Path | tuple[Path, Path]] = [
        d
        if d == resolved_top or not ignores.ignored(resolved_top, True, [d])
        else (d, resolved_top)
        for d in _chain(resolved_top)
    ]
    for root, dirs, files in os.walk(top):
        here = Path(root)
        real = resolved_top / here.relative_to(top)
        chain = base_chain + list(_between(resolved_top, real))
        kept = []
        for name in sorted(dirs):
            child = here / name
            if name in ALWAYS_SKIPPED or ignores.ignored(real / name, True, chain):
                continue
            if excluded and excluded(child, True, top):
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            child = here / name
            if ignores.ignored(real / name, False, chain) or (
                excluded and excluded(child, False, top)
            ):
                continue
            yield child


def _between(top: Path, directory: Path) -> list[Path]:
    """Directories strictly below `top` down to `directory` (their .gitignore files apply too)."""
    if directory == top:
        return []
    parts = directory.relative_to(top).parts
    return [top.joinpath(*parts[: i + 1]) for i in range(len(parts))]
