from __future__ import annotations

import json

from conftest import EXAMPLES


def test_version_and_help(cli):
    assert cli("--version").stdout.strip() == "jp-migrate, version 0.1.0"
    out = cli("--help")
    assert out.returncode == 0
    for name in ("convert", "schema", "rules"):
        assert name in out.stdout


def test_convert_examples(cli):
    out = cli("convert", str(EXAMPLES / "outcomes"), "--compact")
    assert out.returncode == 0, out.stderr
    envelopes = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(envelopes) == len(list((EXAMPLES / "outcomes").glob("*.json")))
    assert all(isinstance(e["content"], list) for e in envelopes)


def test_convert_bad_input_is_one_line(cli):
    out = cli("convert", "-", input='{"type": "needs_input", "question": {"id": "q", "text": "t", "answer_type": {"Select": {}}}}')
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "error: <stdin>: question.answer_type.Select.options: not a valid Outcome: Field required"
    ]
    assert "Traceback" not in out.stderr
