"""What the user can change to make a refused site rewritable, said with every refusal.

Most transforms say it in their own words; a reason that does not (its rule's
plain "what is wrong") gets its rule's advice appended here.
"""

from __future__ import annotations

import dataclasses

from jp_migrate.codemod.sites import (
    DICT_CALL,
    DYNAMIC_TYPE,
    ERROR_DICT,
    KEYED_DICT,
    NEEDS_INPUT_DICT,
    OUTCOME_STRING,
    SPREAD,
    SUCCESS_DICT,
    Finding,
)

_SHAPE = (
    "write it in SPEC §1's shape (every key its tag requires; content and message strings; "
    "a question with id, text and answer_type) to have it rewritten"
)
ADVICE = {
    DYNAMIC_TYPE: (
        'give each Outcome a constant "type" (a string, or a name bound once to one) to have '
        "it rewritten"
    ),
    SPREAD: "write the Outcome's keys out as strings, without `**`, to have it rewritten",
    KEYED_DICT: (
        "start from `out = {}` and set every key of one Outcome in the block (or the branch) "
        "that sets its type, to have it rewritten"
    ),
    OUTCOME_STRING: "build the Outcome as a dict and `json.dumps` it, to have it rewritten",
    SUCCESS_DICT: _SHAPE,
    ERROR_DICT: _SHAPE,
    NEEDS_INPUT_DICT: _SHAPE,
    DICT_CALL: _SHAPE,
}
# Words by which a reason already says what to change.
_SAID = ("to have it rewritten", "instead", "# jp-migrate: skip", "edit it by hand", "then run")


def with_advice(finding: Finding) -> Finding:
    advice = ADVICE.get(finding.rule)
    if finding.action != "unhandled" or advice is None or any(w in finding.reason for w in _SAID):
        return finding
    return dataclasses.replace(finding, reason=f"{finding.reason}; {advice}")
