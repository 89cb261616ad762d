"""A refused spread or dynamic tag names the expression in the way and what to write instead."""

from __future__ import annotations

from textwrap import dedent

from jp_migrate.codemod import migrate_source


def test_a_spread_names_what_it_spreads_and_the_keys_to_write_out() -> None:
    source = """
    def main(text, extra):
        return {"type": "success", **extra}
    """
    (site,) = migrate_source(dedent(source)).sites
    assert site.rule == "codemod-spread"
    assert site.reason.startswith("`extra` (spread into the Outcome) is not assigned exactly once")
    assert "write the keys it brings (`content`) into the Outcome itself" in site.reason


def test_a_spread_of_a_literal_used_only_there_becomes_the_envelope() -> None:
    source = """
    def main(text):
        extra = dict(content=text)
        return {"type": "success", **extra}
    """
    result = migrate_source(dedent(source))
    assert [(s.rule, s.action) for s in result.sites] == [("codemod-success-dict", "rewritten")]
    assert result.output == dedent(
        """
    def main(text):
        extra = dict(content=[{"type": "text", "text": text}])
        return {**extra}
    """
    )


def test_a_spread_used_elsewhere_or_holding_a_type_is_reported() -> None:
    read = """
    def main(text):
        extra = {"content": text}
        log(extra)
        return {"type": "success", **extra}
    """
    (site,) = migrate_source(dedent(read)).sites
    assert (site.rule, site.action) == ("codemod-spread", "unhandled")
    assert "`extra` (spread into the Outcome) is used elsewhere too" in site.reason
    typed = """
    def main(text):
        extra = {"type": "success", "content": text}
        return {"type": "success", **extra}
    """
    sites = migrate_source(dedent(typed)).sites
    assert ("codemod-success-dict", "unhandled") in [(s.rule, s.action) for s in sites]
    (spread,) = [s for s in sites if 'holds a "type" of its own' in s.reason]
    assert spread.action == "unhandled" and "(in `extra`)" in spread.reason


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
