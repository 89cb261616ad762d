"""Shared pydantic configuration and the pydantic-error → ContractError translation."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    ValidationError,
    model_validator,
)

from jp_migrate.errors import ContractError


class Lenient(BaseModel):
    """Strict types, unknown keys ignored (serde's default, no deny_unknown_fields)."""

    model_config = ConfigDict(strict=True, extra="ignore", populate_by_name=True, defer_build=True)


class Open(BaseModel):
    """Strict types, unknown keys kept (so a round trip loses nothing)."""

    model_config = ConfigDict(strict=True, extra="allow", populate_by_name=True, defer_build=True)


class OpenAliased(Open):
    """`Open`, for models whose JSON names differ from their Python names (`_meta`, `schema`).

    An unknown key spelled like a field's Python name (`{"meta": …}`) is kept as
    an extra; pydantic then also counts the field as set, so `dump` would write
    a `"_meta": null` that was never there. This puts such a field back to unset.
    """

    @model_validator(mode="wrap")
    @classmethod
    def _extras_do_not_set_fields(cls, data: Any, handler: Callable[[Any], Any]) -> Any:
        model = handler(data)
        extra = model.__pydantic_extra__
        if extra and isinstance(data, dict):
            for name, info in cls.model_fields.items():
                if (
                    name in extra
                    and info.alias not in (None, name)
                    and info.alias not in data  # written under its own name too: set
                    and getattr(model, name) == info.default
                ):
                    model.__pydantic_fields_set__.discard(name)
        return model


class Closed(BaseModel):
    """Strict types, unknown keys rejected."""

    model_config = ConfigDict(strict=True, extra="forbid", populate_by_name=True, defer_build=True)


_BAD_TAG = "bad_tag"


def tagged(tag: Callable[[Any], str | None], message: str, *, key: str = "") -> Discriminator:
    """A callable discriminator: only the chosen member reports errors, so they name the field.

    `key` is the member of the object that holds the tag (`type` for internally
    tagged unions); a bad tag is then reported at that key, not at the object.
    """
    error_type = f"{_BAD_TAG}:{key}" if key else _BAD_TAG
    return Discriminator(tag, custom_error_type=error_type, custom_error_message=message)


def _integral(value: Any) -> Any:
    """JSON has one number type: `1.0` is the integer 1 (as JSON Schema's `integer` says)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# An integer field that accepts what JSON Schema's `"type": "integer"` accepts (never a bool).
JsonInt = Annotated[int, BeforeValidator(_integral)]


def loc_to_field(loc: tuple[Any, ...]) -> str:
    """Render a pydantic error location as `question.answer_type.Select.options[0]`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.startswith(("~", "function-")):
            continue  # union tags (ours are spelled `~name`) are not fields
        else:
            out += f".{part}" if out else str(part)
    return out


def contract_error(err: ValidationError, *, what: str) -> ContractError:
    """The first (most specific) pydantic error as one ContractError naming the field."""
    # The deepest location is the most specific: `question.answer_type.Select.options`.
    first = max(err.errors(include_url=False), key=lambda e: len(e.get("loc", ())))
    field = loc_to_field(tuple(first.get("loc", ())))
    kind = str(first.get("type", ""))
    if kind.startswith(f"{_BAD_TAG}:"):
        key = kind.partition(":")[2]
        field = f"{field}.{key}" if field else key
    msg = first.get("msg", "invalid value")
    if kind.startswith("recursion_"):  # a document nested past pydantic's limit
        msg = "nested too deeply"  # (`recursion_loop`, `recursion_depth_exceeded` since 2.14)
    if len(field) > FIELD_SHOWN:  # the path to a deeply nested value: its start and its end
        field = f"{field[: FIELD_SHOWN // 2]}…{field[-FIELD_SHOWN // 2 :]}"
    return ContractError(f"not a valid {what}: {msg}", field=field)


FIELD_SHOWN = 120  # characters of a field path in a one-line error
