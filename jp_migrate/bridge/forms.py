"""MCP elicitation as the bridge's questions (RFD 058: one internal input-request type).

An `elicitation/create` request, whether it arrives during a call (protocol
2025-11-25) or inside an `input_required` result (2026-07-28), becomes a `Form`:
NormalizedQuestions answered by the same `AnswerSource` as a local tool's
questions, and turned back into the `ElicitResult` the server reads.

- form mode: one question per property (id = the property, `key.property` on a
  clash), labelled by its description, else its title, else its name (a form's
  only field goes by the form's message alone); a form
  without properties is one yes/no question that accepts or declines it.
- url mode: one yes/no question (id = the key: `url` during a call) showing the
  URL: "yes" once the user has been there, "no" declines. The server's
  elicitation id is random, so it is not the question's id (an answer could not
  be given up front).

Sampling (`sampling/createMessage`) asks for a model's completion: the bridge has
no model, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jp_migrate.bridge.errors import BridgeError
from jp_migrate.bridge.questions import OMITTED
from jp_migrate.contract.normalized import NormalizedQuestion

if TYPE_CHECKING:
    from mcp_types import ElicitResult

NO_MODEL = "no model in this runtime"
SAMPLING = "sampling/createMessage"


@dataclass
class Form:
    """One elicitation request as questions; `fields` maps question id → form property
    (None: the question accepts or declines the whole request)."""

    key: str
    mode: str  # "form" or "url"
    questions: list[NormalizedQuestion]
    fields: dict[str, str | None]
    optional: frozenset[str] = frozenset()  # ids of questions for fields the form does not require

    def reply(self, answers: Mapping[str, Any]) -> ElicitResult:
        """The ElicitResult for `answers` (question id → answer; OMITTED leaves a field out)."""
        from mcp_types import ElicitResult

        content: dict[str, Any] = {}
        for qid, prop in self.fields.items():
            value = answers.get(qid, OMITTED)
            if prop is None:
                if value is not True:
                    return ElicitResult(action="decline")
            elif value is not OMITTED:
                content[prop] = value
        if self.mode == "url":
            return ElicitResult(action="accept")
        return ElicitResult(action="accept", content=content)


def _label(schema: Mapping[str, Any]) -> str | None:
    """What a field says about itself on a prompt: its description, else its title."""
    for key in ("description", "title"):
        value = schema.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def during_call(params: Any) -> Form:
    """The form for an `elicitation/create` request sent during a call (2025-11-25): its
    one yes/no question is `url` (url mode) or `confirm` (a form without fields)."""
    return form_of("url" if getattr(params, "mode", None) == "url" else "confirm", params, set())


def form_of(key: str, request: Any, taken: set[str]) -> Form:
    """The questions for one SDK request object (`ElicitRequest`, or its params).

    `taken` holds the question ids of the other forms asked at the same time; the
    ones this form uses are added.
    """
    method = getattr(request, "method", None)
    params = getattr(request, "params", request)
    mode = getattr(params, "mode", None)
    if method == SAMPLING or type(params).__name__.startswith("CreateMessage"):
        raise BridgeError(
            f"the server asks for a model's completion ({SAMPLING}, {key}): {NO_MODEL}"
        )
    if method not in (None, "elicitation/create") or mode not in ("form", "url"):
        name = method or type(request).__name__
        raise BridgeError(f"the server asks for {name!r} ({key}), which the bridge cannot provide")

    def fresh(qid: str) -> str:
        qid = qid if qid not in taken else f"{key}.{qid}"
        taken.add(qid)
        return qid

    if mode == "url":
        qid = fresh(key)
        text = f"{params.message} Open {params.url} and answer yes once done there."
        question = _question(qid, text, {"type": "boolean"})
        return Form(key, "url", [question], {qid: None})
    schema = params.requested_schema or {}
    properties = schema.get("properties") or {}
    if not properties:
        qid = fresh(key)
        return Form(key, "form", [_question(qid, params.message, {"type": "boolean"})], {qid: None})
    required = schema.get("required")
    required = set(required) if isinstance(required, list) else set()
    questions: list[NormalizedQuestion] = []
    fields: dict[str, str | None] = {}
    optional: set[str] = set()
    for prop, prop_schema in properties.items():
        prop_schema = dict(prop_schema) if isinstance(prop_schema, Mapping) else {}
        qid = fresh(prop)
        if prop not in required:
            optional.add(qid)
        # The field's name stands in for a missing label, unless the message asks for it alone.
        label = _label(prop_schema) or (None if len(properties) == 1 else prop)
        text = params.message if label is None else f"{params.message} {label}"
        # The default is the question's own field (as a question block has it), not the
        # answer's schema: a legacy question with a default compares equal to its form.
        answer_schema = {k: v for k, v in prop_schema.items() if k != "default"}
        questions.append(_question(qid, text, answer_schema, prop_schema.get("default")))
        fields[qid] = prop
    return Form(key, "form", questions, fields, frozenset(optional))


def _question(
    qid: str, text: str, schema: Mapping[str, Any], default: Any = None
) -> NormalizedQuestion:
    return NormalizedQuestion.model_validate(
        {"id": qid, "text": text, "schema": dict(schema), "default": default}
    )


@dataclass
class Forms:
    """The forms of one `input_required` round (or one request during a call)."""

    forms: list[Form] = field(default_factory=list)

    @classmethod
    def of(cls, requests: Mapping[str, Any]) -> Forms:
        taken: set[str] = set()
        return cls([form_of(key, request, taken) for key, request in requests.items()])

    @property
    def questions(self) -> list[NormalizedQuestion]:
        return [q for form in self.forms for q in form.questions]

    @property
    def optional(self) -> frozenset[str]:
        return frozenset().union(*(form.optional for form in self.forms))

    def replies(self, answers: Mapping[str, Any]) -> dict[str, ElicitResult]:
        return {form.key: form.reply(answers) for form in self.forms}
