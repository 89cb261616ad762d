"""The shipped JSON Schemas: well-formed, current, printed by the CLI, and every document fits.

Documents checked: the example Outcomes and the envelopes they convert to, the
real corpus (tests/data/corpus/jp-store) and the example stores, before and
after `upgrade_events`, the store rules' example inputs, normalized outcomes
from both hosts, and a full `Report`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS_DATA, EXAMPLES, REPO, run_cli
from jsonschema import Draft202012Validator

from jp_migrate.contract.parse import dump, load_json, parse_outcome
from jp_migrate.contract.report import Repair, Report, Site, StoreFile, ToolFile, Totals, VerifyCase
from jp_migrate.contract.schemas import SCHEMA_NAMES, load_schema, schema_text, validator
from jp_migrate.contract.schemas.build import all_schemas
from jp_migrate.convert.events import downgrade_response, is_response
from jp_migrate.convert.host import ToolRun, blocks_outcome, legacy_outcome
from jp_migrate.convert.store_rules import upgrade_events
from jp_migrate.convert.upgrade import outcome_to_envelope
from jp_migrate.rules import discover_rules

OUTCOMES = sorted((EXAMPLES / "outcomes").glob("*.json"))
CORPUS = CORPUS_DATA / "jp-store"
STORES = sorted(CORPUS.rglob("events.json")) + sorted(EXAMPLES.rglob("conversations/**/events.json"))


def errors(name: str, doc: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator(name).iter_errors(doc)]


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_committed_schemas_are_what_the_builder_writes() -> None:
    built = all_schemas()
    assert sorted(built) == sorted(SCHEMA_NAMES)
    for name, schema in built.items():
        assert schema_text(name) == json.dumps(schema, indent=2) + "\n", f"rebuild: python -m jp_migrate.contract.schemas ({name})"


def test_cli_prints_each_schema_and_lists_them() -> None:
    listed = run_cli("schema")
    assert (listed.returncode, listed.stdout.split()) == (0, list(SCHEMA_NAMES))
    for name in SCHEMA_NAMES:
        shown = run_cli("schema", name)
        assert shown.returncode == 0 and shown.stdout == schema_text(name)
    assert run_cli("schema", "nope").returncode == 2


# --- examples ---------------------------------------------------------------------------------


def test_there_are_example_outcomes_of_every_kind() -> None:
    kinds = {json.loads(p.read_text("utf-8"))["type"] for p in OUTCOMES}
    assert kinds == {"success", "error", "needs_input"}


@pytest.mark.parametrize("path", OUTCOMES, ids=[p.name for p in OUTCOMES])
def test_example_outcome_and_its_envelope_fit(path: Path) -> None:
    text = path.read_text("utf-8")
    assert errors("outcome", load_json(text)) == []
    envelope = dump(outcome_to_envelope(parse_outcome(text, source=str(path))))
    assert errors("envelope", envelope) == []
    for host in (legacy_outcome, blocks_outcome):
        stdout = text if host is legacy_outcome else json.dumps(envelope)
        assert errors("normalized-outcome", dump(host(ToolRun("t", stdout)).outcome)) == []


# --- stored events ----------------------------------------------------------------------------


def test_the_real_corpus_is_there() -> None:
    assert any(p.is_relative_to(CORPUS) for p in STORES), f"no events.json under {CORPUS}"


@pytest.mark.parametrize("path", STORES, ids=[str(p.relative_to(p.parents[2])) for p in STORES])
def test_stored_responses_fit_before_and_after_migration(path: Path) -> None:
    events = load_json(path.read_bytes(), source=str(path))
    responses = [e for e in events if is_response(e)]
    for event in responses:
        shape = "tool-call-response-migrated" if isinstance(event["content"], list) else "tool-call-response-legacy"
        assert errors(shape, event) == [], event.get("id")
    migrated = upgrade_events(events).events
    for before, after in zip(events, migrated, strict=True):
        if is_response(before):
            assert errors("tool-call-response-migrated", after) == [], before.get("id")
            if isinstance(before["content"], str) and not _urlsafe_repaired(before, after):
                assert downgrade_response(after) == before
        else:
            assert after is before


def _urlsafe_repaired(before: dict[str, Any], after: dict[str, Any]) -> bool:
    from jp_migrate.convert.encoding import decode_payload

    return decode_payload(before["content"])[1] == "urlsafe"


def test_store_rule_example_inputs_fit() -> None:
    checked = 0
    for rule in discover_rules(kind="store"):
        for example in rule.examples:
            for event in load_json(example.input):
                if is_response(event):
                    shape = "tool-call-response-migrated" if isinstance(event["content"], list) else "tool-call-response-legacy"
                    assert errors(shape, event) == [], f"{rule.id}: {example.name}"
                    checked += 1
    assert checked > 0


# --- report -----------------------------------------------------------------------------------


def test_a_full_report_fits() -> None:
    report = Report(
        command="check",
        dry_run=True,
        exit_code=1,
        totals=Totals(files=3, changed=1, repairs=1, unhandled_sites=1, cases=1, mismatches=1),
        store=[
            StoreFile(
                path="conversations/1/events.json",
                conversation="1",
                status="migrated",
                events_total=4,
                events_migrated=2,
                repairs=[Repair(event_index=2, event_id="x", field="content", kind="urlsafe-base64")],
                rules=["store-faithful-text"],
                sha256_before="0" * 64,
                sha256_after="1" * 64,
                diff="--- a\n+++ b\n",
            )
        ],
        tools=[
            ToolFile(
                path="tools/t.py",
                status="error",
                message="syntax error",
                sites=[Site(line=3, column=4, rule="codemod-outcome-success", action="unhandled", reason="dynamic")],
            )
        ],
        verify=[VerifyCase(index=0, verdict="mismatch", differences=["content"], inputs={"path": "a"}, control={"text": "a"})],
        timings={"total": 0.5},
    )
    assert errors("report", dump(report)) == []
    assert errors("report", report.model_dump(mode="json", by_alias=True)) == []


def test_the_schema_files_are_exactly_the_named_schemas() -> None:
    # `jp-migrate schema` and the tests see every shipped file, and nothing else is shipped
    shipped = {p.name for p in (REPO / "jp_migrate" / "contract" / "schemas").glob("*.schema.json")}
    assert shipped == {f"{name}.schema.json" for name in SCHEMA_NAMES}
