"""The legacy host's text for a run that printed no `Outcome` and exited non-zero (SPEC §1).

Apart from `host` because the local adapter prints it for every such run of a
tool it fronts, and should not load `host`'s dataclasses for it.
"""

from __future__ import annotations

from jp_migrate.contract.jsontext import dumps_compact


def legacy_failure_text(name: str, stdout: str, stderr: str) -> str:
    """The legacy host's Err text for the tool `name`'s failed run, as it stored it."""
    return dumps_compact(
        {"message": f"Tool '{name}' execution failed.", "stderr": stderr, "stdout": stdout}
    )
