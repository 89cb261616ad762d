"""A tool's `command` (SPEC §1): a shell-word string or a `{program, args, shell}` table."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.template import render


@dataclass(frozen=True)
class CommandSpec:
    """The unrendered command: each of `program` and `args` is a minijinja template."""

    program: str
    args: tuple[str, ...] = ()
    shell: bool = False

    def argv(self, context: Mapping[str, Any], *, source: str = "") -> list[str]:
        """Render every part, then build what is exec'd (`sh -c` when `shell`)."""
        program = render(self.program, context, source=source)
        args = [render(arg, context, source=source) for arg in self.args]
        if self.shell:
            return ["sh", "-c", " ".join([program, *(shlex.quote(a) for a in args)])]
        return [program, *args]


def parse_command(value: Any, *, source: str = "") -> CommandSpec:
    """A config's `command` value, or one BridgeError naming what is wrong with it."""
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise BridgeError(f"command {value!r}: {exc}", source=source) from None
        if not words:
            raise BridgeError("command is empty", source=source)
        return CommandSpec(words[0], tuple(words[1:]))
    if isinstance(value, Mapping):
        program = value.get("program")
        args = value.get("args", [])
        shell = value.get("shell", False)
        if not isinstance(program, str) or not program:
            raise BridgeError("command.program must be a non-empty string", source=source)
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise BridgeError("command.args must be a list of strings", source=source)
        if not isinstance(shell, bool):
            raise BridgeError("command.shell must be a boolean", source=source)
        return CommandSpec(program, tuple(args), shell)
    raise BridgeError("command must be a string or a {program, args, shell} table", source=source)
