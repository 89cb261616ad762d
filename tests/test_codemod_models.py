"""Pydantic models that build Outcomes: reported with what migrating the model takes."""

from __future__ import annotations

from textwrap import dedent

from jp_migrate.codemod import migrate_source

SOURCE = """
from typing import Optional
from pydantic import BaseModel

class Question(BaseModel):
    id: str
    text: str

class Outcome(BaseModel):
    type: str
    content: Optional[str] = None
    question: Optional[Question] = None

    @classmethod
    def ok(cls, text):
        return cls(type="success", content=text)

def fail():
    return Outcome(type="needs_input", question=Question(id="a", text="b"))
"""


def test_a_pydantic_model_of_the_file_is_named_with_the_fields_it_needs() -> None:
    result = migrate_source(dedent(SOURCE))
    assert result.status == "unchanged"
    by_line = {s.line: s.reason for s in result.sites}
    assert by_line[16].startswith(
        "success Outcome built by `cls(…)`, the pydantic model `Outcome` of this file"
    )
    assert by_line[19].startswith(
        "needs_input Outcome built by `Outcome(…)`, the pydantic model `Outcome`"
    )
    for reason in by_line.values():
        assert "its field `question` holds the model `Question`" in reason
        assert 'meta: dict | None = Field(default=None, alias="_meta")' in reason
        assert "by_alias=True, exclude_none=True" in reason
        assert "SPEC §1" not in reason  # the advice is the model's, not the dict's
