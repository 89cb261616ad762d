"""Sites: the places in a tool source the codemod rewrote or could not handle.

A `Finding` is what a transform decides about one node before positions are
known; `Site` (the report model) is what the user sees, printed as
`path:line:col: rule-id: reason` (line and column 1-based, like ruff).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from jp_migrate.contract.report import Site

Action = Literal["rewritten", "unhandled"]
# Rebuild one node from its already-transformed self (nested sites are rewritten first).
Rebuild = Callable[
    [cst.CSTNode], cst.CSTNode | cst.FlattenSentinel[cst.CSTNode] | cst.RemovalSentinel
]

# The codemod's rule ids; each is a file `rules/<id>.toml` with its examples.
SUCCESS_DICT = "codemod-success-dict"
ERROR_DICT = "codemod-error-dict"
NEEDS_INPUT_DICT = "codemod-needs-input-dict"
DICT_CALL = "codemod-dict-call"
KEYED_DICT = "codemod-keyed-dict"
DYNAMIC_TYPE = "codemod-dynamic-type"
SPREAD = "codemod-spread"
OUTCOME_STRING = "codemod-outcome-string"
READS_LEGACY_KEYS = "codemod-reads-legacy-keys"
MCP_SERVER = "codemod-mcp-server"

RULE_IDS = (
    SUCCESS_DICT,
    ERROR_DICT,
    NEEDS_INPUT_DICT,
    DICT_CALL,
    KEYED_DICT,
    DYNAMIC_TYPE,
    SPREAD,
    OUTCOME_STRING,
    READS_LEGACY_KEYS,
    MCP_SERVER,
)


@dataclass(frozen=True)
class Finding:
    """One decision about one node; `anchor` is the node whose position names the site."""

    anchor: cst.CSTNode
    rule: str
    action: Action
    reason: str
    rewrites: tuple[tuple[cst.CSTNode, Rebuild], ...] = ()
    outcome: cst.CSTNode | None = (
        None  # the node that now builds an envelope (for read-back checks)
    )


def format_site(path: str, site: Site) -> str:
    return f"{path}:{site.line}:{site.column}: {site.rule}: {site.reason}"
