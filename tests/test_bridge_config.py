"""Tools and MCP servers are found where JP finds them (SPEC §1, RFD D08)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jp_migrate.bridge.command import CommandSpec
from jp_migrate.bridge.config import find_root, load_workspace
from jp_migrate.bridge.errors import BridgeError


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    jp = tmp_path / ".jp"
    _write(
        jp / "config.toml",
        'extends = ["shared/*.toml"]\n'
        '[conversation.tools.override]\ncommand = "echo from-config"\n'
        '[providers.mcp.srv]\ntype = "stdio"\ncommand = "python3"\narguments = ["s.py", "--jp"]\n',
    )
    _write(
        jp / "shared" / "base.toml",
        '[conversation.tools.override]\ncommand = "echo from-base"\n'
        '[conversation.tools.based]\ncommand = "echo based"\nextends = "x"\n',
    )
    _write(
        jp / "mcp" / "tools" / "a.toml",
        '[conversation.tools.plain]\nsource = "local"\ncommand = "echo plain"\n',
    )
    _write(
        jp / "mcp" / "tools" / "deep" / "b.toml",
        '[conversation.tools.table]\ncommand = { program = "echo", args = ["x"], shell = true }\n'
        '[conversation.tools.remote]\nsource = "mcp.srv.real_name"\n'
        '[conversation.tools.short]\nsource = "mcp.srv"\n'
        '[conversation.tools.nosrv]\nsource = "mcp.gone.x"\n'
        '[conversation.tools.builtin]\nsource = "builtin"\n',
    )
    return tmp_path


def test_finds_tools_in_every_source(ws: Path) -> None:
    loaded = load_workspace(ws)
    assert set(loaded.tools) == {
        "override",
        "based",
        "plain",
        "table",
        "remote",
        "short",
        "nosrv",
        "builtin",
    }
    assert loaded.tool("plain").command == CommandSpec("echo", ("plain",))
    assert loaded.tool("table").command == CommandSpec("echo", ("x",), shell=True)
    assert loaded.tool("based").command == CommandSpec("echo", ("based",))


def test_config_toml_wins_over_what_it_extends(ws: Path) -> None:
    tool = load_workspace(ws).tool("override")
    assert tool.command == CommandSpec("echo", ("from-config",))
    assert tool.source.endswith("config.toml")


def test_mcp_tools_resolve_their_server(ws: Path) -> None:
    loaded = load_workspace(ws)
    remote = loaded.tool("remote")
    assert remote.kind == "mcp" and remote.remote_name == "real_name"
    assert remote.server is not None and remote.server.args == ("s.py", "--jp")
    assert loaded.tool("short").remote_name == "short"


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("missing", "no tool named 'missing'"),
        ("nosrv", r"no MCP server \[providers\.mcp\.gone\]"),
        ("builtin", "builtin"),
    ],
)
def test_unrunnable_tools_are_named(ws: Path, name: str, reason: str) -> None:
    with pytest.raises(BridgeError, match=reason):
        load_workspace(ws).tool(name)


def test_bad_toml_names_the_file(ws: Path) -> None:
    _write(ws / ".jp" / "mcp" / "tools" / "broken.toml", "[conversation.tools.x\n")
    with pytest.raises(BridgeError, match=r"broken\.toml: invalid TOML"):
        load_workspace(ws)


def test_root_is_found_from_a_subdirectory_or_the_jp_dir(ws: Path) -> None:
    (ws / "src" / "deep").mkdir(parents=True)
    assert find_root(ws / "src" / "deep") == ws.resolve()
    assert find_root(ws / ".jp") == ws.resolve()


def test_no_workspace(tmp_path: Path) -> None:
    with pytest.raises(BridgeError, match="no .jp/ directory"):
        find_root(tmp_path)


def test_package_exports_are_lazy() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import jp_migrate.bridge as b; b.Target; b.verify_cases; "
        "print('mcp' in sys.modules, 'jp_migrate.bridge.mcp_client' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False"]  # the MCP SDK loads only on the MCP path
