"""JSON written as serde_json writes it: JP's `{{tool}}` blob and its compact error texts."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jp_migrate.bridge.template import render, tool_context
from jp_migrate.contract.jsontext import dumps_compact, serde_float
from jp_migrate.convert.host import ToolRun, legacy_outcome

# The `ryu` crate's own expectations (serde_json formats doubles with it, or with zmij,
# which is tested to agree with it), plus the boundaries where Python's repr differs.
RYU = [
    (0.3, "0.3"),
    (1.234e15, "1234000000000000.0"),
    (1.234e16, "1.234e16"),
    (2.71828, "2.71828"),
    (1.1e128, "1.1e128"),
    (1.1e-64, "1.1e-64"),
    (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e308"),
    (0.0, "0.0"),
    (-0.0, "-0.0"),
    (1.0, "1.0"),
    (-1.0, "-1.0"),
    (2.9802322387695312e-8, "2.9802322387695312e-8"),
    (-2.109808898695963e16, "-2.109808898695963e16"),
    (9.0608011534336e15, "9060801153433600.0"),
    (4.708356024711512e18, "4.708356024711512e18"),
    (1.2345678, "1.2345678"),
    (5.764607523034235e39, "5.764607523034235e39"),
    (1e20, "1e20"),  # Python: 1e+20
    (1e16, "1e16"),  # Python: 1e+16
    (1e15, "1000000000000000.0"),
    (1e-5, "0.00001"),  # Python: 1e-05
    (1.5e-5, "0.000015"),  # Python: 1.5e-05
    (1e-4, "0.0001"),
    (1e-6, "1e-6"),  # Python: 1e-06
    (123456789.125, "123456789.125"),
    (544431068535091.6, "544431068535091.6"),
]


@pytest.mark.parametrize(("value", "written"), RYU)
def test_a_double_is_written_as_serde_json_writes_it(value: float, written: str) -> None:
    assert serde_float(value) == written


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_written_double_reads_back_as_itself(value: float) -> None:
    text = serde_float(value)
    assert float(text) == value and math.copysign(1, float(text)) == math.copysign(1, value)
    assert "+" not in text and ("." in text or "e" in text)  # always a double, never an integer


def test_compact_json_numbers_and_text() -> None:
    value = {"f": [2.0, 1e20, 1e-5], "i": [3, -(2**63), 2**64 - 1], "big": 10**30, "s": "é\x1f"}
    assert dumps_compact(value) == (
        '{"f":[2.0,1e20,0.00001],"i":[3,-9223372036854775808,18446744073709551615],'
        '"big":1e30,"s":"é\\u001f"}'  # an integer beyond 64 bits is a double to serde_json
    )
    assert (
        dumps_compact({"nan": math.nan, "t": True, "n": None}) == '{"nan":null,"t":true,"n":null}'
    )
    with pytest.raises(TypeError):
        dumps_compact({"x": object()})


def test_the_tool_blob_writes_numbers_as_jp_does() -> None:
    context = tool_context("t", {"tiny": 1e-5, "huge": 1e20, "two": 2.0}, {}, {}, Path("/w"))
    assert render("{{tool.arguments}}", context) == '{"tiny":0.00001,"huge":1e20,"two":2.0}'


def test_a_legacy_transient_error_is_compact_serde_json() -> None:
    stdout = json.dumps({"type": "error", "message": "boom é", "trace": ["a"], "transient": True})
    outcome = legacy_outcome(ToolRun("t", stdout))
    assert outcome.outcome.text == '{"message":"boom é","trace":["a"]}'
