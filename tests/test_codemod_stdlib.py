"""The interpreter's standard library is code the codemod must leave alone: no site, no change.

It is full of dicts with "type", "error" and "content" keys, `json.dumps`, TypedDicts
and servers, none of them a JP tool's Outcome.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jp_migrate.codemod import ToolsOptions, migrate_tools

LIB = Path(json.__file__).resolve().parent.parent
PACKAGES = ("json", "logging", "http", "email", "asyncio", "xmlrpc", "urllib", "importlib")
MODULES = ("typing.py", "argparse.py", "dataclasses.py", "enum.py", "pdb.py", "ssl.py")


@pytest.fixture(scope="module")
def lib_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stdlib")
    for name in PACKAGES:
        if (LIB / name).is_dir():
            shutil.copytree(LIB / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in MODULES:
        if (LIB / name).is_file():
            shutil.copy2(LIB / name, root / name)
    return root


def test_the_stdlib_has_no_site_and_is_left_as_it_is(lib_copy: Path) -> None:
    before = {p: p.read_bytes() for p in lib_copy.rglob("*.py")}
    assert len(before) > 100
    files = migrate_tools([lib_copy], ToolsOptions(write=True))
    assert [(f.path, f.sites) for f in files if f.sites or f.status != "unchanged"] == []
    assert {p: p.read_bytes() for p in lib_copy.rglob("*.py")} == before
