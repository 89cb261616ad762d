"""The packages' public names: each listed once, each the object its module defines."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("package", ["jp_migrate.codemod", "jp_migrate.contract", "jp_migrate.convert"])
def test_every_public_name_is_listed_once_and_loads(package: str) -> None:
    module = importlib.import_module(package)
    names = module.__all__
    assert len(names) == len(set(names))
    for name in names:
        value = getattr(module, name)
        assert not isinstance(value, type(module)), f"{package}.{name} is a module"
    assert set(names) <= set(dir(module))


def test_no_public_name_is_also_a_submodule_s_name() -> None:
    # Loading `jp_migrate.convert.render` sets the package's `render` to the module: a
    # function of that name would be one thing before and another after.
    import pkgutil

    for package in ("jp_migrate.contract", "jp_migrate.convert"):
        module = importlib.import_module(package)
        submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
        assert not submodules & set(module.__all__), package
