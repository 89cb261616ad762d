"""Command templates render the way SPEC §1 says JP renders them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from jp_migrate.bridge.command import CommandSpec, parse_command
from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.template import render, tool_context

CTX = tool_context(
    "grep",
    {
        "path": "src/é x.rs",
        "n": 3,
        "ratio": 0.5,
        "flag": True,
        "list": [1, "a"],
        "obj": {"k": None},
    },
    {"confirm": False},
    {},
    Path("/work/ws"),
    workspace_id="ws1",
)


@pytest.mark.parametrize(
    ("template", "rendered"),
    [
        ("{{tool.arguments.path}}", "src/é x.rs"),  # strings raw, non-ASCII kept
        ("{{tool.arguments.n}}", "3"),
        ("{{tool.arguments.ratio}}", "0.5"),
        ("{{tool.arguments.n + 1}}", "4"),
        ("{{tool.arguments.flag}}", "true"),  # bools as JSON, not Python
        ("{{tool.answers.confirm}}", "false"),
        ("{{tool.arguments.list}}", '[1,"a"]'),  # lists compact JSON
        ("{{tool.arguments.obj}}", '{"k":null}'),  # maps compact JSON
        ("{{context.access}}", "null"),  # none
        ("{{tool.arguments.missing}}", "null"),  # undefined
        ("{{context.conversation_id}}", "null"),
        ("{{context.workspace_id}}", "ws1"),
        ("{{context.action}} {{context.root}}", "run /work/ws"),
        ("{{tool.arguments | tojson}}", None),  # filters still work (checked below)
    ],
)
def test_formatter(template: str, rendered: str | None) -> None:
    out = render(template, CTX)
    if rendered is not None:
        assert out == rendered
    else:
        assert out.startswith("{") and '"path"' in out


@pytest.mark.parametrize(
    ("value", "rendered"), [(2.0, "2.0"), (1e20, "100000000000000000000.0"), (-0.0, "-0.0")]
)
def test_a_float_renders_as_minijinja_writes_it(value: float, rendered: str) -> None:
    """The Python binding hands a finalizer 2.0 as the int 2; JP's engine writes `2.0`."""
    context = tool_context("t", {"x": value}, {}, {}, Path("/w"))
    assert render("{{tool.arguments.x}}", context) == rendered


def test_whole_tool_is_a_json_blob() -> None:
    assert render("{{tool}}", CTX) == (
        '{"name":"grep","arguments":{"path":"src/é x.rs","n":3,"ratio":0.5,"flag":true,'
        '"list":[1,"a"],"obj":{"k":null}},"answers":{"confirm":false},"options":{}}'
    )


@pytest.mark.parametrize("template", ["{{ tool.arguments.path", "{% for %}", "{{ nope.deeper }}"])
def test_template_errors_are_one_line(template: str) -> None:
    with pytest.raises(BridgeError) as err:
        render(template, CTX, source="cfg.toml")
    message = str(err.value)
    assert message.startswith("cfg.toml: template error in ") and "\n" not in message


def test_string_command_is_split_then_each_word_rendered() -> None:
    spec = parse_command("python3 tool.py '{{tool}}' --path {{tool.arguments.path}}")
    assert spec == CommandSpec(
        "python3", ("tool.py", "{{tool}}", "--path", "{{tool.arguments.path}}")
    )
    argv = spec.argv(CTX)
    assert argv[2].startswith('{"name":"grep"') and argv[4] == "src/é x.rs"


def test_table_command_with_shell_quotes_args() -> None:
    spec = parse_command(
        {"program": "echo", "args": ["{{tool.arguments.path}}", "$HOME"], "shell": True}
    )
    assert spec.argv(CTX) == ["sh", "-c", "echo 'src/é x.rs' '$HOME'"]


def test_table_command_without_shell_execs_directly() -> None:
    spec = parse_command({"program": sys.executable, "args": ["-c", "print(1)"]})
    assert spec.argv(CTX) == [sys.executable, "-c", "print(1)"]


@pytest.mark.parametrize(
    "value",
    [
        "",
        "   ",
        "echo 'unterminated",
        {"args": []},
        {"program": "x", "args": "no"},
        {"program": "x", "shell": 1},
        3,
    ],
)
def test_bad_commands(value: object) -> None:
    with pytest.raises(BridgeError):
        parse_command(value, source="t.toml")
