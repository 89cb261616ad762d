"""Pydantic models that build Outcomes (form 7): rewritten with their constructions and dumps,
or reported, every site of the family, with what stands in the way."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path
from textwrap import dedent
from typing import Any

import libcst as cst
import pytest

from jp_migrate.codemod import migrate_source
from jp_migrate.codemod.mapping import shaped_like_dict_call
from jp_migrate.codemod.pydantic_models import pydantic_findings, together
from jp_migrate.contract.parse import parse_envelope, try_outcome
from jp_migrate.convert.upgrade import outcome_to_envelope

FIXTURES = Path(__file__).parent / "fixtures" / "codemod_pydantic"

HEAD = """
import json
from pydantic import BaseModel
"""

# (name, before, after): the file's models, constructions and dumps, rewritten together.
PAIRS = [
    (
        "generic model, success and error, model_dump_json",
        HEAD
        + """
class Outcome(BaseModel):
    type: str
    content: str | None = None
    message: str | None = None
    trace: list[str] | None = None
    transient: bool | None = None

def run(ok):
    if ok:
        return Outcome(type="success", content="done")
    return Outcome(type="error", message="no", trace=[], transient=False)

print(run(True).model_dump_json(exclude_none=True))
""",
        """
import json
from pydantic import BaseModel, Field

class Outcome(BaseModel):
    content: list[dict]
    isError: bool | None = None
    meta: dict | None = Field(default=None, serialization_alias="_meta")

def run(ok):
    if ok:
        return Outcome(content=[{"type": "text", "text": "done"}])
    return Outcome(content=[{"type": "text", "text": "no"}], isError=True, meta={"computer.jp/error": {"trace": [], "transient": False}})

print(run(True).model_dump_json(by_alias=True, exclude_none=True))
""",
    ),
    (
        "tagged model, Field defaults written out, json.dumps(m.model_dump())",
        HEAD
        + """from pydantic import Field

class Failure(BaseModel):
    type: str = "error"
    message: str
    trace: list[str] = Field(default_factory=list)
    transient: bool = False

print(json.dumps(Failure(message="gone").model_dump(), indent=2))
""",
        """
import json
from pydantic import BaseModel
from pydantic import Field

class Failure(BaseModel):
    content: list[dict]
    isError: bool | None = None
    meta: dict | None = Field(default=None, serialization_alias="_meta")

print(json.dumps(Failure(content=[{"type": "text", "text": "gone"}], isError=True, meta={"computer.jp/error": {"trace": [], "transient": False}}).model_dump(by_alias=True, exclude_none=True), indent=2))
""",
    ),
    (
        "nested question held in a name: answer_type becomes the schema, pre_amble a block",
        HEAD
        + """
class Question(BaseModel):
    id: str
    text: str
    answer_type: str | dict = "Boolean"
    pre_amble: str | None = None

class Outcome(BaseModel):
    type: str
    question: Question | None = None

q = Question(id="go", text="Go?", answer_type={"Select": {"options": ["a", "b"]}})
print(Outcome(type="needs_input", question=q).model_dump_json())
""",
        """
import json
from pydantic import BaseModel, Field

class Question(BaseModel):
    id: str
    text: str
    answer_schema: dict = Field(default={"type": "boolean"}, serialization_alias="schema")
    pre_amble: str | None = Field(default=None, exclude=True)

class Outcome(BaseModel):
    content: list[dict]

q = Question(id="go", text="Go?", answer_schema={"type": "string", "enum": ["a", "b"]})
print(Outcome(content=[*[{"type": "text", "text": pre_amble} for pre_amble in [q.pre_amble] if pre_amble is not None], {"type": "question", "question": q}]).model_dump_json(by_alias=True, exclude_none=True))
""",
    ),
    (
        "classmethod factories build with cls(...), a method dumps self",
        HEAD
        + """
class Reply(BaseModel):
    type: str = "success"
    content: str

    @classmethod
    def of(cls, n):
        return cls(content=f"{n} rows")

    def emit(self):
        print(self.model_dump_json())

Reply.of(3).emit()
""",
        """
import json
from pydantic import BaseModel

class Reply(BaseModel):
    content: list[dict]

    @classmethod
    def of(cls, n):
        return cls(content=[{"type": "text", "text": f"{n} rows"}])

    def emit(self):
        print(self.model_dump_json(by_alias=True, exclude_none=True))

Reply.of(3).emit()
""",
    ),
]


PAIRS.append(
    (
        "dumped through a name, an annotated parameter and an annotated async function",
        HEAD
        + """
class Reply(BaseModel):
    type: str = "success"
    content: str

async def run(n) -> Reply:
    return Reply(content=str(n))

def emit(reply: Reply):
    print(reply.model_dump_json())

async def main():
    result = await run(1)
    print(json.dumps(result.model_dump()))
    emit(await run(2))
""",
        """
import json
from pydantic import BaseModel

class Reply(BaseModel):
    content: list[dict]

async def run(n) -> Reply:
    return Reply(content=[{"type": "text", "text": str(n)}])

def emit(reply: Reply):
    print(reply.model_dump_json(by_alias=True, exclude_none=True))

async def main():
    result = await run(1)
    print(json.dumps(result.model_dump(by_alias=True, exclude_none=True)))
    emit(await run(2))
""",
    )
)


PAIRS.append(
    (
        "`import pydantic as pd`: Field defaults recognised by qualified name, `pd.Field` used",
        """
import pydantic as pd

class Failure(pd.BaseModel):
    type: str = "error"
    message: str
    trace: list[str] = pd.Field(default_factory=list, description="causes")
    transient: bool = pd.Field(False)

print(Failure(message="x").model_dump_json())
""",
        """
import pydantic as pd

class Failure(pd.BaseModel):
    content: list[dict]
    isError: bool | None = None
    meta: dict | None = pd.Field(default=None, serialization_alias="_meta")

print(Failure(content=[{"type": "text", "text": "x"}], isError=True, meta={"computer.jp/error": {"trace": [], "transient": False}}).model_dump_json(by_alias=True, exclude_none=True))
""",
    )
)


PAIRS.append(
    (
        "imported under other names",
        """
from pydantic import BaseModel as Model, Field as F

class Failure(Model):
    type: str = "error"
    message: str
    trace: list[str] = F(default_factory=list)
    transient: bool = False

print(Failure(message="x").model_dump_json())
""",
        """
from pydantic import BaseModel as Model, Field as F

class Failure(Model):
    content: list[dict]
    isError: bool | None = None
    meta: dict | None = F(default=None, serialization_alias="_meta")

print(Failure(content=[{"type": "text", "text": "x"}], isError=True, meta={"computer.jp/error": {"trace": [], "transient": False}}).model_dump_json(by_alias=True, exclude_none=True))
""",
    )
)


PAIRS.append(
    (
        "`Field` added to a parenthesised import, one name a line",
        """
from pydantic import (
    BaseModel,
    ConfigDict,
)

class Err(BaseModel):
    model_config = ConfigDict(frozen=True)
    type: str = "error"
    message: str
    trace: list = []
    transient: bool = False

print(Err(message="x").model_dump_json())
""",
        """
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

class Err(BaseModel):
    model_config = ConfigDict(frozen=True)
    content: list[dict]
    isError: bool | None = None
    meta: dict | None = Field(default=None, serialization_alias="_meta")

print(Err(content=[{"type": "text", "text": "x"}], isError=True, meta={"computer.jp/error": {"trace": [], "transient": False}}).model_dump_json(by_alias=True, exclude_none=True))
""",
    )
)


@pytest.mark.parametrize(("before", "after"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS])
def test_a_pydantic_outcome_model_is_rewritten_with_its_constructions(
    before: str, after: str
) -> None:
    result = migrate_source(before)
    assert not result.unhandled, result.sites
    assert result.output == after
    assert migrate_source(after).status == "unchanged"  # a second run changes nothing


def _refused(source: str) -> list[str]:
    result = migrate_source(dedent(source))
    assert result.status == "unchanged" and result.output is None
    assert result.sites and all(s.action == "unhandled" for s in result.sites)
    return [s.reason for s in result.sites]


MODEL = """
import json
from pydantic import BaseModel

class Outcome(BaseModel):
    type: str
    content: str | None = None
    message: str | None = None
    trace: list[str] = []
    transient: bool = False
"""

MODEL_VALIDATED = (
    '    @field_validator("content")\n'
    "    @classmethod\n"
    "    def strip(cls, v):\n"
    "        return v.strip()\n\n"
    'print(Outcome(type="success", content=" x ").model_dump_json())\n'
)

# (name, rest of the file, what the reason of every site names): the family is left whole.
REFUSALS = [
    (
        "a legacy field read back",
        'o = Outcome(type="success", content="x")\nif o.content:\n    print(o.model_dump_json())\n',
        "`.content` is read at 12:4 (`o.content`)",
    ),
    (
        "the class used as a value",
        (
            "o = Outcome.model_validate_json(text)\n"
            'print(Outcome(type="success", content="y").model_dump_json())\n'
        ),
        "`Outcome` is used at 11:5 other than to build",
    ),
    (
        "a dump naming fields",
        'print(Outcome(type="success", content="x").model_dump_json(exclude={"trace"}))\n',
        "passes `exclude`, which names the legacy fields",
    ),
    (
        "no dump in the file",
        'def ok():\n    return Outcome(type="success", content="x")\n',
        "no `model_dump(…)` or `model_dump_json(…)` of it in this file",
    ),
    (
        "a type only known when the tool runs",
        (
            'kind = "success"\nprint(Outcome(type=kind, content="x").model_dump_json())\n'
            'print(Outcome(type="success", content="y").model_dump_json())\n'
        ),
        "is given no constant `type` the codemod can map: pass one",
    ),
    (
        "a field passed by **",
        'print(Outcome(type="success", **extra).model_dump_json())\n',
        "passes a positional or `**` argument: name each field",
    ),
    (
        "a dump of a value the codemod cannot tell is the model",
        'def show(x):\n    print(x.model_dump_json())\n\nshow(Outcome(type="success", content="x"))\n',
        "`x.model_dump_json()` at 12:11 dumps something the codemod cannot tell is one",
    ),
    (
        "a dump that may be another model's",
        (
            "class Other(BaseModel):\n    n: int\n\n"
            "def show(x):\n    print(x.model_dump_json())\n\n"
            'show(Outcome(type="success", content="x"))\n'
        ),
        "(the file has `Other` too)",
    ),
    (
        "a validator on the model",
        MODEL_VALIDATED,
        '`@field_validator("content")` on `Outcome.strip` at 11:5 may name or read',
    ),
    (
        "a required key with no default",
        'print(Outcome(type="success").model_dump_json())\n',
        "incomplete success Outcome: no 'content'",
    ),
]


@pytest.mark.parametrize(("rest", "named"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_a_model_that_cannot_be_rewritten_whole_is_reported_at_every_site(
    rest: str, named: str
) -> None:
    for reason in _refused(MODEL + rest):
        assert "the pydantic model `Outcome` of this file: not rewritten, since " in reason
        assert named in reason
        assert "to have it rewritten" in reason


def test_a_default_the_class_evaluates_once_is_not_written_out() -> None:
    source = MODEL.replace("trace: list[str] = []", "trace: list[str] = list(TRACE)")
    source += 'print(Outcome(type="error", message="x").model_dump_json())\n'
    (reason,) = _refused(source)
    assert "leaves out `trace`, whose default (`list(TRACE)`) the class evaluates once" in reason


def test_a_model_imported_in_a_try_block_with_nothing_to_follow_is_reported() -> None:
    source = (
        "try:\n    from pydantic import BaseModel\nexcept ImportError:\n    raise\n"
        + MODEL.split("from pydantic import BaseModel\n")[1].replace("import json\n", "")
        + 'print(Outcome(type="error", message="x").model_dump_json())\n'
    )
    (reason,) = _refused(source)
    assert "no top-level import to put `from pydantic import Field` after" in reason


def test_isinstance_checks_and_annotations_are_no_other_use() -> None:
    source = MODEL + (
        "def show(o: Outcome) -> None:\n"
        "    if isinstance(o, (Outcome, dict)) or isinstance(o, Outcome):\n"
        "        print(o.model_dump_json())\n\n"
        'show(Outcome(type="success", content="x"))\n'
    )
    result = migrate_source(source)
    assert [s.action for s in result.sites] == ["rewritten"]


def test_a_question_not_bound_to_the_question_model_is_reported() -> None:
    source = """
        import json
        from pydantic import BaseModel

        class Question(BaseModel):
            id: str
            text: str
            answer_type: str = "Text"

        class Outcome(BaseModel):
            type: str
            question: Question

        def ask(q: Question):
            print(Outcome(type="needs_input", question=q).model_dump_json())
        """
    (reason,) = _refused(source)
    assert "the question `q` is not always bound to `Question(…)`" in reason


def test_a_skip_marker_on_one_construction_keeps_the_whole_family() -> None:
    source = MODEL + (
        'print(Outcome(type="success", content="x").model_dump_json())\n'
        'print(Outcome(type="success", content="y").model_dump_json())  # jp-migrate: skip\n'
    )
    result = migrate_source(source)
    assert result.output is None
    assert not any(s.action == "rewritten" for s in result.sites)


def test_a_family_with_one_site_refused_later_is_left_whole() -> None:
    """`settle` or a linked file may refuse a site after the family was planned."""
    source = MODEL + (
        'print(Outcome(type="success", content="x").model_dump_json())\n'
        'print(Outcome(type="error", message="y").model_dump_json())\n'
    )
    module = cst.parse_module(source)
    planned = pydantic_findings(module, shaped_like_dict_call)
    first, second = planned.findings
    assert first.action == second.action == "rewritten"
    refused = dataclasses.replace(second, action="unhandled", reason="read back", rewrites=())
    kept = together([first, refused], planned)
    assert [f.action for f in kept] == ["unhandled", "unhandled"]
    assert kept[0].rewrites == ()
    assert "the construction at 12:7 of the same model is skipped or refused" in kept[0].reason


MCP = """
from mcp.server.fastmcp import FastMCP
from pydantic import BaseModel

server = FastMCP("x")

class Outcome(BaseModel):
    type: str
    content: str

    def text(self) -> str:
        return self.model_dump_json()

@server.tool()
def hello() -> str:
    return Outcome(type="success", content="hi").text()
"""


def test_an_mcp_server_model_dump_becomes_the_tool_result() -> None:
    result = migrate_source(MCP)
    assert not result.unhandled and result.output is not None
    assert [s.rule for s in result.sites] == ["codemod-mcp-server"]
    assert result.output == (
        MCP.replace("BaseModel\n", "BaseModel\nfrom mcp.types import CallToolResult\n")
        .replace("    type: str\n    content: str\n", "    content: list[dict]\n")
        .replace("-> str", "-> CallToolResult")
        .replace(
            "self.model_dump_json()",
            "CallToolResult.model_validate(self.model_dump(by_alias=True, exclude_none=True))",
        )
        .replace('content="hi"', 'content=[{"type": "text", "text": "hi"}]')
        .replace('type="success", ', "")
    )


def test_an_mcp_server_model_dumped_outside_a_tool_is_reported() -> None:
    source = MCP + 'print(Outcome(type="success", content="x").text())\n'
    for reason in _refused(source):
        assert "`.text()` at 17:7 is not returned by a tool handler" in reason


def test_an_mcp_server_model_asking_a_question_is_reported_with_elicitation() -> None:
    source = MCP.replace("content: str", "content: str = ''\n    question: dict | None = None")
    source += (
        "@server.tool()\n"
        "def ask() -> str:\n"
        '    return Outcome(type="needs_input", question={"id": "a", "text": "b", '
        '"answer_type": "Text"}).text()\n'
    )
    for reason in _refused(source):
        assert "ask with elicitation instead" in reason


def test_a_model_with_other_fields_is_reported_as_before() -> None:
    source = MODEL.replace("transient: bool = False", "transient: bool = False\n    user: str = ''")
    source += 'print(Outcome(type="success", content="x").model_dump_json())\n'
    (reason,) = _refused(source)
    assert "a model is not rewritten" in reason


# Each fixture tool run before and after the rewrite: the legacy Outcome it printed, mapped
# by the bridge's own conversion, is exactly the envelope the rewritten tool prints.
RUNS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("release_gate.py", {"checklist": "missing"}, {}),
    ("release_gate.py", {"checklist": "open.md"}, {}),
    ("release_gate.py", {"checklist": "open.md"}, {"channel": "stable"}),
    ("release_gate.py", {"checklist": "open.md"}, {"channel": "beta"}),
    ("release_gate.py", {"checklist": "done.md"}, {}),
    ("env_pick.py", {}, {}),
    ("env_pick.py", {"envs": ["staging", "prod"]}, {}),
    ("env_pick.py", {"envs": ["dev", "staging", "prod"]}, {}),
    ("env_pick.py", {"envs": ["dev", "staging", "prod"]}, {"env": "prod"}),
    ("quota_check.py", {"used": "x", "limit": 3}, {}),
    ("quota_check.py", {"used": 2, "limit": 3}, {}),
    ("quota_check.py", {"used": 5, "limit": 3}, {}),
    ("quota_check.py", {"used": 5, "limit": 3, "explain": True}, {}),
    ("quota_check.py", {"used": 5, "limit": 3}, {"raise": True}),
    ("quota_check.py", {"used": 5, "limit": 3}, {"raise": False}),
]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pydantic")
    for name in ("before", "after"):
        shutil.copytree(FIXTURES, root / name)
        (root / name / "open.md").write_text("- [x] docs\n- [ ] changelog\n", encoding="utf-8")
        (root / name / "done.md").write_text("- [x] docs\n", encoding="utf-8")
    for tool in FIXTURES.glob("*.py"):
        result = migrate_source(tool.read_text(encoding="utf-8"))
        assert result.status == "migrated" and not result.unhandled, result.sites
        assert result.output is not None
        (root / "after" / tool.name).write_text(result.output, encoding="utf-8")
    return root


def _run(directory: Path, tool: str, arguments: dict[str, Any], answers: dict[str, Any]) -> str:
    call = json.dumps({"arguments": arguments, "answers": answers})
    done = subprocess.run(
        [sys.executable, tool, call],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stderr == ""
    return done.stdout


@pytest.mark.parametrize(("tool", "arguments", "answers"), RUNS)
def test_a_rewritten_fixture_prints_the_envelope_the_mapping_gives(
    workspace: Path, tool: str, arguments: dict[str, Any], answers: dict[str, Any]
) -> None:
    legacy = try_outcome(_run(workspace / "before", tool, arguments, answers))
    assert legacy is not None
    printed = json.loads(_run(workspace / "after", tool, arguments, answers))
    assert parse_envelope(printed) == outcome_to_envelope(legacy)
