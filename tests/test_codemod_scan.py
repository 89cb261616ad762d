"""The scan's read-only walk drives its `CSTVisitor` exactly as libcst's own traversal does."""

from __future__ import annotations

import dataclasses
import sysconfig
from pathlib import Path

import libcst as cst
import pytest
from conftest import REPO

from jp_migrate.codemod.scan import Collector, Scan, scan

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Code nobody on the team wrote: the blind tool corpus and stdlib modules using
# match, f-strings, comprehensions, decorators, `yield from`, `with … as` and `del`.
SOURCES = sorted((REPO / "tests" / "corpus" / "tools").rglob("*.py")) + [
    p
    for p in (
        STDLIB / n
        for n in ("string.py", "textwrap.py", "shlex.py", "pprint.py", "contextlib.py", "ast.py")
    )
    if p.exists()
]


def _comparable(found: Scan) -> dict[str, object]:
    """The scan with each node as its identity: the same nodes in the same order, or not."""

    def norm(value: object) -> object:
        if isinstance(value, cst.CSTNode):
            return id(value)
        if isinstance(value, (list, tuple)):
            return [norm(v) for v in value]
        if isinstance(value, set):
            return sorted(value)
        if isinstance(value, dict):
            return {k: norm(v) for k, v in value.items()}
        return value

    return {f.name: norm(getattr(found, f.name)) for f in dataclasses.fields(found)}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_walk_matches_libcst_traversal(path: Path) -> None:
    try:
        module = cst.parse_module(path.read_text("utf-8"))
    except cst.ParserSyntaxError:
        pytest.skip("not Python libcst parses (the corpus holds such input on purpose)")
    by_libcst = Collector(module)
    module.visit(by_libcst)
    assert _comparable(scan(module)) == _comparable(by_libcst.found)


def test_scan_finds_each_kind_in_source_order() -> None:
    source = (
        "def f(x={'a': g()}):\n"
        "    y = {'b': h(x['c'])}\n"
        "    s = 'p' f'{x}' 'q'\n"
        "    return y\n"
        "class C:\n"
        "    def __init__(self):\n"
        "        self.out = {}\n"
        "        self.out['type'] = 'success'\n"
    )
    module = cst.parse_module(source)
    found = scan(module)
    code = module.code_for_node
    assert [code(d) for d, _ in found.dicts] == ["{'a': g()}", "{'b': h(x['c'])}", "{}"]
    assert [code(c) for c, _ in found.calls] == ["g()", "h(x['c'])"]
    assert [code(s) for s, _ in found.subscripts] == ["x['c']", "self.out['type']"]
    # A parameter default belongs to its function; an implicit concatenation is one string.
    assert [type(scope).__name__ for _, scope in found.dicts] == ["FunctionDef"] * 3
    assert [code(s) for s in found.strings] == [
        "'a'",
        "'b'",
        "'c'",
        "'p' f'{x}' 'q'",
        "'type'",
        "'success'",
    ]
    assert [name for _, name, _ in found.assigns] == ["y", "s", "self.out"]
    assert list(found.constructors) == ["C"]
    assert len(found.stores) == 1 and len(found.stored) == 1
