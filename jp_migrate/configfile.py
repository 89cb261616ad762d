"""Config files read into pydantic models, and their errors in one format: `FILE: KEY: PROBLEM`.

Every config jp-migrate reads (`check`'s `.jp-migrate.toml`, rule files, the
parts of JP's workspace config the bridge runs) states its shape as a
`ConfigModel`; `validated` turns the first thing wrong into one line naming
the file, the key (`verify.timeout`, `examples[0].input`) and the problem.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails

M = TypeVar("M", bound=BaseModel)


def kebab(name: str) -> str:
    return name.replace("_", "-")


class ConfigModel(BaseModel):
    """A table of a config file: no key it does not know, no value converted to fit."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class KebabModel(ConfigModel):
    """A table whose keys are kebab-case (`exclude-archived` for `exclude_archived`)."""

    model_config = ConfigDict(alias_generator=kebab, populate_by_name=False)


def _non_empty(value: str) -> str:
    if not value.strip():
        raise ValueError("expected a non-empty string, got an empty string")
    return value


def _seconds(value: float) -> float:
    if not 0 < value < math.inf:  # `nan` compares false with everything: caught here too
        raise ValueError("expected a number of seconds above 0")
    return value


NonEmpty = Annotated[str, AfterValidator(_non_empty)]
Seconds = Annotated[float, AfterValidator(_seconds)]

_TOML_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "a boolean"),
    (int, "an integer"),
    (float, "a float"),
    (str, "a string"),
    (list, "an array"),
    (dict, "a table"),
)
_EXPECTED = {
    "bool_type": "true or false",
    "string_type": "a string",
    "int_type": "a whole number",
    "float_type": "a number",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
}


def toml_type(value: object) -> str:
    """A TOML value's type in TOML's words, for error messages."""
    return next(
        (name for kind, name in _TOML_TYPES if isinstance(value, kind)), type(value).__name__
    )


def _key(loc: tuple[int | str, ...]) -> str:
    key = ""
    for part in loc:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds (`Section` or `Section | None`), if any."""
    for candidate in (annotation, *get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _known(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[str]:
    """The keys the table at `loc` takes (descending through nested models)."""
    for part in loc:
        field = next(
            (f for name, f in model.model_fields.items() if (f.alias or name) == part), None
        )
        inner = _model_of(field.annotation) if field is not None else None
        if inner is None:
            return []
        model = inner
    return sorted(f.alias or name for name, f in model.model_fields.items())


def problem(error: ErrorDetails, model: type[BaseModel]) -> str:
    """What is wrong, in words a config file's author reads (pydantic's, where ours are none)."""
    kind = error["type"]
    if kind == "missing":
        return "missing"
    if kind == "extra_forbidden":
        known = _known(model, tuple(error["loc"][:-1]))
        return f"unknown key (expected one of {', '.join(known)})" if known else "unknown key"
    if kind == "value_error":
        return str(error.get("ctx", {}).get("error", error["msg"]))
    if kind == "literal_error":
        expected = str(error.get("ctx", {}).get("expected", "")).replace("'", "")
        return f"{error['input']!r} is not one of {expected.replace(' or ', ', ')}"
    if kind == "greater_than_equal":
        return f"expected at least {error.get('ctx', {}).get('ge')}, got {error['input']!r}"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {toml_type(error['input'])}"
    return error["msg"][0].lower() + error["msg"][1:]


def validated(
    model: type[M],
    data: Mapping[str, Any],
    error: Callable[[str, str], Exception],
    *,
    prefix: str = "",
) -> M:
    """`data` as `model`, or `error(key, problem)` raised for the first thing wrong.

    `prefix` is the table's own key in its file (`tool.jp-migrate.`), so the
    key named is the one the author finds in the file.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise error(prefix + _key(tuple(first["loc"])), problem(first, model)) from None
