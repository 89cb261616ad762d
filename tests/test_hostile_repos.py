"""Hostile repositories for every command that writes (tests/data/hostile_repos/, README there).

Each scenario builds a repository with something planted in it, beside a directory
`outside/` of the user's own files, and lists the commands to run in it. Whatever it
holds: nothing under `outside/` changes (an lstat walk: no link followed, no FIFO
opened), no command prints a traceback, hangs or exits with anything but 0, 1 or 2 (or
what the scenario names), the files it names are byte for byte as before, and every
TOML and Python file of the repository is whole (it parses: never half-written).
"""

from __future__ import annotations

import ast
import os
import resource
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hostile_support import prepare, snapshot

HOSTILE = Path(__file__).parent / "data" / "hostile_repos"
TIMEOUT = 120  # a hang (a FIFO opened, /dev/zero read, / walked) is what this catches
MEMORY_LIMIT = 4 << 30


def _scenarios() -> list[str]:
    return sorted(
        p.stem for p in (HOSTILE / "scenarios").glob("*.py") if not p.name.startswith("_")
    )


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _env() -> dict[str, str]:
    """`python3` and `jp-migrate` are this interpreter's (the adapted configs run them)."""
    return {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "200",
        "NO_COLOR": "1",
    }


def _run(argv: list[str], cwd: Path, stdout: str | None = None) -> tuple[int, str, str]:
    command = [sys.executable, "-m", "jp_migrate", *argv]
    if stdout is None:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=_limits,
            env=_env(),
            check=False,
        )
        return (
            done.returncode,
            done.stdout.decode(errors="replace"),
            done.stderr.decode(errors="replace"),
        )
    read, write = os.pipe()
    if stdout == "broken":
        os.close(read)  # the reader is gone before a byte is written
        kept: dict[str, Any] = {"stdout": write}
    else:  # "closed": descriptor 1 closed in the child, as `>&-` does
        os.close(read)
        os.close(write)
        kept = {"stdout": subprocess.DEVNULL, "preexec_fn": lambda: (_limits(), os.close(1))}
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
            env=_env(),
            check=False,
            **{"preexec_fn": _limits, **kept},
        )
    finally:
        if stdout == "broken":
            os.close(write)
    return done.returncode, "", done.stderr.decode(errors="replace")


def _whole(root: Path) -> None:
    """Every TOML and Python file of the repository parses: nothing is half-written, and
    no temporary of ours is left but those a scenario planted (links)."""
    for path in root.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        if path.name.endswith(".jp-migrate.partial"):
            raise AssertionError(f"{path}: a temporary left behind")
        if path.suffix == ".toml":
            tomllib.loads(path.read_bytes().decode("utf-8").removeprefix("\ufeff"))
        elif path.suffix == ".py":
            ast.parse(path.read_bytes())


def _check(step: dict[str, Any], code: int, out: str, err: str, where: str) -> None:
    assert "Traceback" not in out + err, where
    assert code in step.get("exit", (0, 1, 2)), where
    if "stdout_contains" in step:
        assert step["stdout_contains"] in out, where
    if "stderr_contains" in step:
        assert step["stderr_contains"] in err, where


def _concurrent(name: str, root: Path, commands: list[list[str]]) -> None:
    """The commands at once. Each may be refused (exit 2: another run is writing the file,
    or it changed since read), but what a run says it did must hold once all are done: a
    run that exited 0 finds, run again with --check, nothing left to do (no lost update)."""
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "jp_migrate", *argv],
            cwd=root,
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        for argv in commands
    ]
    done = []
    for argv, run in zip(commands, runs, strict=True):
        out, err = run.communicate(timeout=TIMEOUT)
        where = f"{name}: concurrent {' '.join(argv)} (exit {run.returncode})\n{err.decode()}"
        _check({}, run.returncode, out.decode(), err.decode(), where)
        if run.returncode == 0:
            done.append(argv)
    for argv in done:
        code, out, err = _run([*argv, "--check"], root)
        assert code == 0, f"{name}: {' '.join(argv)} said done, and is not: {out}{err}"


@pytest.mark.parametrize("name", _scenarios())
def test_hostile_repository(name: str, tmp_path: Path) -> None:
    root, outside, info = prepare(HOSTILE / "scenarios", name, tmp_path, "repo")
    before_outside = snapshot(outside)
    kept = {
        p: (root / p).read_bytes() for p in [*info.get("unchanged", []), *info.get("restored", [])]
    }
    changed = {p: (root / p).read_bytes() for p in info.get("changed", [])}
    for step in info["commands"]:
        if "remove" in step:  # the scenario's next act: a planted thing taken away
            (root / step["remove"]).unlink()
            continue
        if "concurrent" in step:
            _concurrent(name, root, step["concurrent"])
            where = f"{name}: concurrent runs"
        else:
            argv = step["argv"]
            code, out, err = _run(argv, root / step.get("cwd", "."), step.get("stdout"))
            where = f"{name}: jp-migrate {' '.join(argv)} (exit {code})\n{(out + err)[-3000:]}"
            _check(step, code, out, err, where)
            for path in step.get("files", []):
                assert (root / path).is_file(), f"{path} not written: {where}"
            for path, text in step.get("file_contains", {}).items():
                assert text in (root / path).read_text("utf-8"), f"{path}: {where}"
        assert snapshot(outside) == before_outside, f"outside changed: {where}"
        for path in info.get("unchanged", []):
            assert (root / path).read_bytes() == kept[path], f"{path} changed: {where}"
        _whole(root)
    for path in info.get("restored", []):
        assert (root / path).read_bytes() == kept[path], f"{name}: {path} not given back"
    for path in info.get("changed", []):
        assert (root / path).read_bytes() != changed[path], f"{name}: {path} not migrated"
    for path in info.get("absent", []):
        assert not os.path.lexists(root / path), f"{name}: {path} exists"
