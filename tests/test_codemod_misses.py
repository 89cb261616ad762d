"""Silent misses a review found: each is now reported (file left as is) or rewritten faithfully.

A silent wrong rewrite (the tool then prints something that is not the SPEC §2
mapping of what it printed before) is the worst bug the codemod can have; a
pattern it cannot prove safe must be an unhandled site instead.
"""

from __future__ import annotations

from textwrap import dedent

import pytest

from jp_migrate.codemod import migrate_source
from jp_migrate.codemod.precheck import may_contain_outcome


def unhandled(source: str) -> list[str]:
    """`line:col: rule: reason` of the unhandled sites; the file must be left as it is."""
    result = migrate_source(dedent(source))
    assert result.status == "unchanged" and result.output is None, result
    return [
        f"{s.line}:{s.column}: {s.rule}: {s.reason}"
        for s in result.sites
        if s.action == "unhandled"
    ]


def rewritten(source: str) -> str:
    result = migrate_source(dedent(source))
    assert not result.unhandled and result.output is not None, result.sites
    return result.output


# 1. A legacy key set somewhere the rewrite does not own.
LATER_WRITES = {
    "a literal's key set again in a nested block": (
        """
        import json
        out = {"type": "success", "content": ""}
        if True:
            out["content"] = "verbose"
        print(json.dumps(out))
        """,
        "5:5: codemod-keyed-dict: sets the legacy Outcome key 'content' of `out` outside the block",
    ),
    "a helper's result mutated later": (
        """
        def ok(text):
            return {"type": "success", "content": text}

        def run(x):
            res = ok("a")
            if x:
                res["content"] = "b"
            return res
        """,
        "8:9: codemod-keyed-dict: sets the legacy Outcome key 'content' of `res`",
    ),
    "update(content=…) in a nested block": (
        """
        out = {"type": "success", "content": ""}
        if verbose:
            out.update(content="x")
        """,
        "4:5: codemod-keyed-dict: `.update(…)` on `out` may set a legacy Outcome key",
    ),
    "an error's message replaced in an else branch": (
        """
        def fail(exc):
            result = {"type": "error", "message": "failed", "trace": [], "transient": False}
            if exc is None:
                pass
            else:
                result["message"] = str(exc)
            return result
        """,
        "7:9: codemod-keyed-dict: sets the legacy Outcome key 'message' of `result`",
    ),
    "a key-by-key Outcome's content set again in a nested block": (
        """
        def run(text, verbose):
            out = {}
            out["type"] = "success"
            out["content"] = text
            if verbose:
                out["content"] = text * 2
            return out
        """,
        "7:9: codemod-keyed-dict: sets the legacy Outcome key 'content' of `out`",
    ),
}


@pytest.mark.parametrize(("source", "expected"), LATER_WRITES.values(), ids=list(LATER_WRITES))
def test_a_legacy_key_set_outside_the_rewritten_block_is_unhandled(
    source: str, expected: str
) -> None:
    sites = unhandled(source)
    assert any(s.startswith(expected) for s in sites), sites


# 2. Reads of a legacy key of a value that may be a rewritten Outcome.
READS = {
    "module-level result of a helper, read in a function": (
        """
        def ok(t):
            return {"type": "success", "content": t}
        R = ok("x")
        def main():
            return R.get("content").upper()
        """,
        "6:12: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `R`",
    ),
    "pop": (
        """
        out = {"type": "success", "content": "x"}
        text = out.pop("content")
        """,
        "3:8: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `out`",
    ),
    "setdefault": (
        """
        out = {"type": "success", "content": "x"}
        out.setdefault("content", "")
        """,
        "3:1: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `out`",
    ),
    "match on the type tag": (
        """
        def ok(t):
            return {"type": "success", "content": t}
        def show(r):
            match r:
                case {"type": "success", "content": c}:
                    return c
        """,
        "6:15: codemod-reads-legacy-keys: matches a legacy Outcome's \"type\" against 'success'",
    ),
    "match a legacy key of a helper's result": (
        """
        def ok(t):
            return {"type": "success", "content": t}
        match ok("x"):
            case {"content": c}:
                print(c)
        """,
        "5:11: codemod-reads-legacy-keys: matches the legacy Outcome key 'content' of `ok(…)`",
    ),
    "a list of Outcomes, iterated": (
        """
        def ok(t):
            return {"type": "success", "content": t}
        results = [ok(x) for x in "ab"]
        for r in results:
            print(r.get("content"))
        """,
        "6:11: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `r`",
    ),
    "a list of Outcomes, indexed": (
        """
        def ok(t):
            return {"type": "success", "content": t}
        r = [ok(x) for x in "ab"][0]
        print(r.get("content"))
        """,
        "5:7: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `r`",
    ),
    "an Outcome passed to a function of this file": (
        """
        def ok(t):
            return {"type": "success", "content": t}
        def show(outcome):
            print(outcome.get("content"))
        show(ok("x"))
        """,
        "5:11: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `outcome`",
    ),
    "an Outcome passed to a method and kept by a constructor": (
        """
        class Tool:
            def __init__(self, outcome):
                self.outcome = outcome

            def ok(self, t):
                return {"type": "success", "content": t}

            def text(self):
                return self.outcome["content"], self.registry.get("content")

        Tool(Tool.ok(None, "x"))
        """,
        "10:16: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `self.outcome`",
    ),
    "a helper returning another helper's Outcome": (
        """
        def ok(t):
            return {"type": "success", "content": t}
        def run():
            return ok("x")
        print(run()["content"])
        """,
        "6:7: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `run(…)`",
    ),
    "membership test": (
        """
        out = {"type": "error", "message": "m", "trace": [], "transient": False}
        if "message" in out:
            pass
        """,
        "3:4: codemod-reads-legacy-keys: tests for the legacy Outcome key 'message' of `out`",
    ),
    "an attribute holding an Outcome": (
        """
        class Tool:
            def run(self):
                self.out = {"type": "success", "content": "x"}
                return self.out["content"]
        """,
        "5:16: codemod-reads-legacy-keys: reads the legacy Outcome key 'content' of `self.out`",
    ),
}


@pytest.mark.parametrize(("source", "expected"), READS.values(), ids=list(READS))
def test_a_read_of_a_legacy_key_of_a_rewritten_outcome_is_unhandled(
    source: str, expected: str
) -> None:
    sites = unhandled(source)
    assert any(s.startswith(expected) for s in sites), sites


def test_legacy_keys_of_other_dicts_still_leave_the_file_rewritable() -> None:
    source = """
        def ok(t):
            return {"type": "success", "content": t}
        message = {"role": "user", "content": "hi"}
        print(message["content"], "content" in message)
        out = ok(message["content"])
        out["isError"] = False
        """
    assert 'return {"content": [{"type": "text", "text": t}]}' in rewritten(source)


# 3. Keys that are names, and constructors that are not the builtin dict.
NOT_LITERAL = {
    "keys are module constants bound twice to different strings": (
        """
        import json
        TYPE = "type"
        CONTENT = "content"
        if flag:
            CONTENT = "text"
        print(json.dumps({TYPE: "success", CONTENT: "x"}))
        """,
        "7:18: codemod-spread: a key `CONTENT` that is not a constant string in a success",
    ),
    "keys are class attributes": (
        """
        print(json.dumps({Keys.TYPE: "error", Keys.MESSAGE: m}))
        """,
        "2:18: codemod-spread: error Outcome with keys that are not string literals",
    ),
    "a key-by-key Outcome under a constant key": (
        """
        TYPE = "type"
        out = {}
        out[TYPE] = "success"
        out["content"] = "x"
        """,
        "4:1: codemod-keyed-dict: success Outcome built with a key that is not a string literal",
    ),
    "a dataclass constructor": (
        """
        from dataclasses import dataclass
        @dataclass
        class Success:
            type: str
            content: str
        print(Success(type="success", content="typed"))
        """,
        "7:7: codemod-dict-call: success Outcome built by `Success(…)`, which is not the builtin",
    ),
}


@pytest.mark.parametrize(("source", "expected"), NOT_LITERAL.values(), ids=list(NOT_LITERAL))
def test_an_outcome_not_keyed_by_string_literals_is_unhandled(source: str, expected: str) -> None:
    sites = unhandled(source)
    assert any(s.startswith(expected) for s in sites), sites


def test_keys_and_tags_held_by_names_bound_to_one_string_are_rewritten() -> None:
    source = """
        import json
        TYPE, SUCCESS = "type", "success"
        CONTENT = "content"

        def report(ok, text):
            if ok:
                kind, key = "success", "content"
            else:
                kind, key = "success", "content"
            print(json.dumps({"type": kind, key: text}))
            return {TYPE: SUCCESS, CONTENT: text}
        """
    result = migrate_source(dedent(source))
    assert not result.unhandled and result.output is not None
    assert 'print(json.dumps({key: [{"type": "text", "text": text}]}))' in result.output
    assert 'return {CONTENT: [{"type": "text", "text": text}]}' in result.output


def test_a_name_that_is_a_parameter_holds_no_constant_tag() -> None:
    source = """
        def report(kind, text):
            print(json.dumps({"type": kind, "content": text}))
        """
    assert [s.rule for s in migrate_source(dedent(source)).sites] == ["codemod-dynamic-type"]


def test_a_table_whose_values_happen_to_be_tags_is_not_an_outcome() -> None:
    source = """
        import logging
        LEVELS = {logging.ERROR: "error", logging.INFO: "info"}
        BY_NAME = {name: "success"}
        parser.add_argument("--mode", type=str)
        event = Event(type="error", code=3)
        """
    assert migrate_source(dedent(source)).sites == []


# 4. The pre-check and JSON strings with escaped quotes.
def test_the_pre_check_passes_a_json_string_with_escaped_quotes() -> None:
    source = 'print("{\\"type\\": \\"success\\", \\"content\\": \\"hi\\"}")\n'
    assert may_contain_outcome(source)
    assert may_contain_outcome('x = "{\\"type\\": kind, \\"content\\": \\"hi\\"}"\n')
    assert [s.rule for s in migrate_source(source).sites] == ["codemod-outcome-string"]


def test_the_pre_check_passes_a_dynamic_type_beside_a_spread() -> None:
    """No tag and no legacy key written out: the spread may bring them; reported, not skipped."""
    for outcome in ('{"type": kind, **payload}', "{**payload, 'type': kind}", '{"type": k,\n **p}'):
        source = f"import json\nprint(json.dumps({outcome}))\n"
        assert may_contain_outcome(source), source
        assert [s.rule for s in migrate_source(source).sites] == ["codemod-dynamic-type"]
    assert not may_contain_outcome('def f(**kw):\n    return {"type": 1}\n')


# 5. Comments survive the rewrite.
COMMENTS = {
    "a removed statement's comment moves to the next one": (
        """
        def run(text):
            out = {}

            # ---- build the JP result ----
            out["type"] = "success"  # the tag
            out["content"] = text
            return out
        """,
        """
        def run(text):
            out = {}

            # ---- build the JP result ----
            # the tag
            out["content"] = [{"type": "text", "text": text}]
            return out
        """,
    ),
    "the last statement of a block keeps its comment at the block's end": (
        """
        if ready:
            out = {}
            out["content"] = "x"
            # tag last
            out["type"] = "success"
        print(out)
        """,
        """
        if ready:
            out = {}
            out["content"] = [{"type": "text", "text": "x"}]
            # tag last
        print(out)
        """,
    ),
    "a dropped entry's trailing comment": (
        """
        def ok(text):
            return {
                "type": "success",  # legacy tag
                "content": text,
            }
        """,
        """
        def ok(text):
            return {
                # legacy tag
                "content": [{"type": "text", "text": text}],
            }
        """,
    ),
    "a comment between a dropped entry and the next": (
        """
        x = {
            "type": "error",
            # what the model sees
            "message": m,
            "trace": [],
            "transient": True,  # retry
            "extra": 1,
        }
        """,
        """
        x = {
            # what the model sees
            "content": [{"type": "text", "text": m}],
            "isError": True,
            "_meta": {"computer.jp/error": {"trace": [], "transient": True}},
            # retry
            "extra": 1,
        }
        """,
    ),
    "a dict(...) call": (
        """
        x = dict(
            type="success",  # tag
            content=t,
        )
        """,
        """
        x = dict(
            # tag
            content=[{"type": "text", "text": t}],
        )
        """,
    ),
}


@pytest.mark.parametrize(("before", "after"), COMMENTS.values(), ids=list(COMMENTS))
def test_comments_are_kept(before: str, after: str) -> None:
    assert rewritten(before) == dedent(after)
    assert migrate_source(dedent(after)).status == "unchanged"


def test_an_outcome_typeddict_is_rewritten_with_its_class() -> None:
    source = """
        from typing import Literal, TypedDict

        class Failure(TypedDict):
            type: Literal["error"]
            message: str
            trace: list[str]
            transient: bool

        def fail(m: str) -> Failure:
            return Failure(type="error", message=m, trace=[], transient=False)
        """
    result = migrate_source(dedent(source))
    assert not result.unhandled and result.output is not None
    assert "    content: list[dict]\n    isError: bool\n    _meta: dict\n" in result.output
    assert (
        'return Failure(content=[{"type": "text", "text": m}], isError=True, '
        '_meta={"computer.jp/error": {"trace": [], "transient": False}})'
    ) in result.output


def test_a_typeddict_with_other_fields_is_still_reported() -> None:
    source = """
        from typing import TypedDict
        class Event(TypedDict):
            type: str
            content: str
            user: str
        print(Event(type="success", content="x", user="u"))
        """
    assert [s.rule for s in migrate_source(dedent(source)).sites] == ["codemod-dict-call"]


def test_a_tagged_dataclass_whose_fields_are_read_back_is_reported() -> None:
    source = """
        import json
        from dataclasses import asdict, dataclass

        @dataclass
        class Success:
            content: str
            type: str = "success"

        result = Success("done")
        print(json.dumps(asdict(result)) if result.content else "")
        """
    (site,) = migrate_source(dedent(source)).sites
    assert (site.line, site.rule, site.action) == (10, "codemod-dict-call", "unhandled")
    assert "build the Outcome as a dict" in site.reason


def test_a_payload_tagged_error_with_its_own_keys_is_not_an_outcome() -> None:
    source = """
        import json
        def error_message(text):
            return json.dumps({"type": "error", "text": text, "blocks": []})
        """
    assert migrate_source(dedent(source)).sites == []
