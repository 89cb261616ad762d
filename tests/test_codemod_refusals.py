"""A refused spread or dynamic tag names the expression in the way and what to write instead."""

from __future__ import annotations

from textwrap import dedent

from jp_migrate.codemod import migrate_source


def test_a_spread_names_what_it_spreads_and_the_keys_to_write_out() -> None:
    source = """
    def main(text):
        extra = dict(content=text)
        return {"type": "success", **extra}
    """
    (site,) = migrate_source(dedent(source)).sites
    assert site.rule == "codemod-spread"
    assert site.reason.startswith("`**extra` in a success Outcome")
    assert "write the keys it brings (`content`) into the Outcome itself" in site.reason


def test_a_dynamic_tag_names_where_it_comes_from() -> None:
    source = """
    import json

    def main():
        kind, payload = verdict()
        print(json.dumps({"type": kind, **payload}))
    """
    # No legacy key is written out: the substring pre-check alone would pass the file by.
    (site,) = migrate_source(dedent(source), precheck=False).sites
    assert site.rule == "codemod-dynamic-type"
    assert site.reason.startswith('a "type" taken from `kind`, not a constant string')


def test_a_legacy_key_written_to_is_not_rewritten_as_a_read() -> None:
    # `del`, a `for` target and a `with … as` target store into the key: a read put
    # there would not compile, so the file's reads stay reported.
    for statement in (
        'del r["content"]',
        'for r["trace"] in []: pass',
        'with f() as r["content"]: pass',
    ):
        source = f'def ok(t):\n    return {{"type": "success", "content": t}}\nr = ok("a")\n{statement}\n'
        result = migrate_source(source)
        assert result.status == "unchanged", statement
        reads = [s for s in result.sites if s.rule == "codemod-reads-legacy-keys"]
        assert [s.action for s in reads] == ["unhandled"], statement
