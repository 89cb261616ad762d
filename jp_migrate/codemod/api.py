"""The codemod's public API: `migrate_tools(paths, options) -> list[ToolFile]` (no printing).

discover → read → `engine.migrate_source` (pure) → write or diff. A file that
cannot be read or parsed becomes `ToolFile(status="error")` naming the position;
the other files are still processed. Only a PATH that does not exist raises.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from jp_migrate.codemod.discover import discover
from jp_migrate.codemod.engine import Link, migrate_source
from jp_migrate.codemod.imports import sibling_imports
from jp_migrate.codemod.precheck import decode_source
from jp_migrate.contract.report import ToolFile
from jp_migrate.errors import JpMigrateError
from jp_migrate.files import edit
from jp_migrate.files.edit import Snapshot
from jp_migrate.files.workspace import Boundary

CHUNK = 16  # files per task handed to a worker: enough to amortise the pickling


@dataclass(frozen=True)
class ToolsOptions:
    write: bool = True  # rewrite files in place (False: --check)
    diff: bool = False  # fill ToolFile.diff (and write nothing)
    exclude: tuple[str, ...] = ()
    exclude_base: Path | None = None  # what `exclude` patterns are relative to (default: cwd)
    jobs: int = 1


def _display(path: Path) -> str:
    return path.as_posix()


def _refusal(snapshot: Snapshot) -> str | None:
    """Why a file that would change is left as it is, or None (what a rewrite cannot keep)."""
    if not snapshot.mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return "read-only file: left untouched (make it writable to migrate it)"
    if snapshot.links > 1:
        return (
            f"hard-linked ({snapshot.links} names): left untouched, a rewrite would "
            "split it from its other names"
        )
    if snapshot.uid != os.geteuid() and os.geteuid() != 0:
        return f"owned by another user (uid {snapshot.uid}): left untouched, a rewrite would take it over"
    return None


def unified_diff(path: str, before: str, after: str) -> str:
    a, b = (path, path) if path.startswith("/") else (f"a/{path}", f"b/{path}")
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), a, b
        )
    )


def migrate_file(path: Path, options: ToolsOptions, link: Link | None = None) -> ToolFile:
    shown = _display(path)
    try:
        snapshot = edit.read(path, Boundary.named(path))
        source, encoding = decode_source(snapshot.data)
    except JpMigrateError as exc:  # a link, a FIFO: refused, never followed nor waited on
        return ToolFile(path=shown, status="error", message=str(exc).removeprefix(f"{path}: "))
    except (UnicodeDecodeError, LookupError):
        return ToolFile(
            path=shown,
            status="error",
            message="cannot decode (not valid UTF-8, or a bad coding cookie)",
        )
    except OSError as exc:
        return ToolFile(path=shown, status="error", message=f"cannot read: {exc.strerror or exc}")
    writes = options.write and not options.diff
    result = migrate_source(source, generate=writes or options.diff, link=link)
    diff = (
        unified_diff(shown, source, result.output)
        if options.diff and result.output is not None
        else None
    )
    if writes and result.output is not None:
        try:
            refused = _refusal(snapshot)  # what a rewrite in place could not keep
            if refused is None:
                edit.replace(snapshot, result.output.encode(encoding), Boundary.named(path))
        except JpMigrateError as exc:  # changed since it was read, or being written
            refused = str(exc).removeprefix(f"{path}: ")
        except OSError as exc:
            refused = f"cannot write: {exc.strerror or exc}"
        if refused is not None:
            return ToolFile(path=shown, status="error", message=refused, sites=result.sites)
    return ToolFile(
        path=shown,
        status=result.status,
        message=result.message,
        line=result.line,
        column=result.column,
        sites=result.sites,
        diff=diff,
    )


def _migrate_chunk(paths: list[Path], options: ToolsOptions) -> list[ToolFile]:
    return [migrate_file(p, options) for p in paths]


def discover_sources(
    paths: Sequence[Path], exclude: Sequence[str] = (), base: Path | None = None
) -> list[Path]:
    """The Python files `migrate_tools` reads under `paths` (`.gitignore` files and `exclude`
    patterns, relative to `base`, honoured), sorted; raises for a PATH that does not exist."""
    return discover(paths, exclude, base)


def migrate_tools(paths: Sequence[Path], options: ToolsOptions = ToolsOptions()) -> list[ToolFile]:
    """Every Python file under `paths`, in path order. Tools that import each other are
    done together, in this process (`links`); the others in `options.jobs` workers."""
    files = discover(paths, options.exclude, options.exclude_base)
    links = _links(files)
    alone = [f for f in files if f not in links]
    if options.jobs <= 1 or len(alone) <= CHUNK:
        done = _migrate_chunk(alone, options)
    else:
        chunks = [alone[i : i + CHUNK] for i in range(0, len(alone), CHUNK)]
        with ProcessPoolExecutor(max_workers=options.jobs) as pool:
            results = pool.map(_migrate_chunk, chunks, [options] * len(chunks))
            done = [f for chunk in results for f in chunk]
    by_path = dict(zip(alone, done, strict=True))
    by_path.update((path, migrate_file(path, options, link)) for path, link in links.items())
    return [by_path[f] for f in files]


def _source(path: Path) -> str | None:
    try:
        return decode_source(edit.read_bounded(path))[0]
    except (OSError, JpMigrateError, UnicodeDecodeError, LookupError):
        return None  # migrate_file reports it


def _links(files: Sequence[Path]) -> dict[Path, Link]:
    """The `Link` of every file that imports, or is imported by, another file given."""
    sources = {f: s for f in files if f.suffix == ".py" and (s := _source(f)) is not None}
    imports = sibling_imports(files, sources)
    if not imports:
        return {}
    targets = {i.target for found in imports.values() for i in found}
    checked = {
        t: migrate_source(sources[t], generate=False, link=Link()) for t in targets if t in sources
    }
    exports = {t: result.exports for t, result in checked.items()}
    helpers: dict[Path, dict[str, str]] = {}
    owners: dict[Path, dict[str, tuple[Path, str]]] = {}
    for importer, found in imports.items():
        for i in found:
            names = exports.get(i.target, frozenset())
            pairs = (
                [(f"{i.local}.{f}", f) for f in names]
                if i.function is None
                else [(i.local, i.function)]
                if i.function in names
                else []
            )
            for local, function in pairs:
                helpers.setdefault(importer, {})[local] = f"{i.target.stem}.{function}"
                owners.setdefault(importer, {})[local] = (i.target, function)
    refusing = {
        t for t, result in checked.items() if any(s.action == "unhandled" for s in result.sites)
    }
    clean = {
        importer: not any(i.target in refusing for i in found)
        for importer, found in imports.items()
    }
    blocked: dict[Path, dict[str, list[str]]] = {}
    for importer, named in helpers.items():
        link = Link(named, clean=clean[importer])
        result = migrate_source(sources[importer], generate=False, link=link)
        for local, wheres in result.foreign_reads.items():
            target, function = owners[importer][local]
            spots = [f"{_display(importer)}:{w}" for w in wheres]
            blocked.setdefault(target, {}).setdefault(function, []).extend(spots)
    return {
        f: Link(helpers.get(f, {}), blocked.get(f, {}), clean.get(f, True))
        for f in [*imports, *targets]
    }
