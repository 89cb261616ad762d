"""The README and docs/ say what the commands do: every option the CLI has is in the
command reference, every option the docs show exists, every link leads somewhere.

`mkdocs build --strict` (in .ci/run) checks the site's own links and nav; these
tests check the docs against the CLI itself, and need no MkDocs.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import click
import pytest
from conftest import REPO

from jp_migrate.cli import cli

README = REPO / "README.md"
DOCS = REPO / "docs"
REFERENCE = DOCS / "reference.md"
TEST_COMMAND = (
    "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest"
)


def commands(
    group: click.Group = cli, prefix: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            yield from commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


def option_names(command: click.Command, *, hidden: bool) -> set[str]:
    """Every long and short name of COMMAND's options (hidden ones too when HIDDEN)."""
    names: set[str] = set()
    for param in command.params:
        if isinstance(param, click.Option) and (hidden or not param.hidden):
            names.update(param.opts + param.secondary_opts)
    return names - {"-h", "--help"}


def reference_sections() -> dict[str, str]:
    """reference.md's `## ` sections by heading."""
    parts = re.split(r"^## (.+)$", REFERENCE.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def section_of(path: tuple[str, ...]) -> str:
    """The reference section documenting the command PATH (`rules list` and `rules test`
    could share one, headed `rules list, rules test`)."""
    name = " ".join(path)
    found = [
        body
        for heading, body in reference_sections().items()
        if name in (part.strip() for part in heading.split(","))
    ]
    assert len(found) == 1, f"docs/reference.md: no single `## {name}` section"
    return found[0]


ALL_COMMANDS = dict(commands())


@pytest.mark.parametrize("path", sorted(ALL_COMMANDS), ids=" ".join)
def test_the_reference_documents_every_option_and_no_other(path: tuple[str, ...]) -> None:
    command = ALL_COMMANDS[path]
    section = section_of(path)
    documented = set(re.findall(r"`(--?[a-z][a-z0-9-]*)", section))
    missing = {n for n in option_names(command, hidden=False) if n.startswith("--")} - documented
    assert not missing, f"docs/reference.md, {' '.join(path)}: undocumented {sorted(missing)}"
    unknown = documented - option_names(command, hidden=True)
    assert not unknown, f"docs/reference.md, {' '.join(path)}: no such option {sorted(unknown)}"


def reference_rows(section: str) -> dict[str, str]:
    """A reference section's option table: each option named in a row's first cell → the
    row's last cell (its meaning)."""
    rows: dict[str, str] = {}
    for row in re.findall(r"^\|(.+)\|\s*$", section, flags=re.MULTILINE):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)]
        for name in re.findall(r"`(--?[a-z][a-z0-9-]*)", cells[0]):
            rows[name] = cells[-1]
    return rows


def plain_words(text: str) -> str:
    """TEXT as a reader compares it: no Markdown code marks, one space between words, no
    final full stop, the first letter in lower case, and `[default: X]` as click shows
    a default written into a help text, read as `(default: X)`."""
    text = " ".join(text.replace("`", "").replace("\\|", "|").split())
    text = re.sub(r"\.? \[default: (.+)\]$", r" (default: \1)", text).rstrip(".")
    return text[:1].lower() + text[1:]


@pytest.mark.parametrize("path", sorted(ALL_COMMANDS), ids=" ".join)
def test_the_reference_says_what_help_says(path: tuple[str, ...]) -> None:
    """Each option's row in docs/reference.md begins with its `--help` text, word for word;
    the reference may go on to say more."""
    rows = reference_rows(section_of(path))
    for param in ALL_COMMANDS[path].params:
        if not isinstance(param, click.Option) or param.hidden:
            continue
        name = max(param.opts, key=len)
        assert param.help, f"jp-migrate {' '.join(path)} {name}: no help text"
        said, documented = plain_words(param.help), plain_words(rows.get(name, ""))
        assert documented.startswith(said), (
            f"docs/reference.md, {' '.join(path)} {name}:\n  --help:    {said}\n"
            f"  reference: {documented}"
        )


def markdown_files() -> list[Path]:
    return [README, REPO / "benchmarks" / "README.md", *sorted(DOCS.glob("*.md"))]


def shown_commands(text: str) -> Iterator[list[str]]:
    """The `jp-migrate ...` command lines in TEXT's shell code blocks."""
    for block in re.findall(
        r"^```(?:sh|bash|console)\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL
    ):
        for raw in block.splitlines():
            try:
                words = shlex.split(raw, comments=True)
            except ValueError:
                continue  # a line that is not a whole command (a template, an excerpt)
            if words[:1] == ["jp-migrate"]:
                yield words[1:]


def resolve(words: list[str]) -> tuple[tuple[str, ...], click.Command]:
    path: tuple[str, ...] = ()
    for word in words:
        if (*path, word) in ALL_COMMANDS:
            return (*path, word), ALL_COMMANDS[(*path, word)]
        path = (*path, word)
    raise AssertionError(f"no command in: jp-migrate {' '.join(words)}")


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_command_shown_uses_options_that_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for words in shown_commands(text):
        if words[:1] in (["--version"], ["--help"], ["-h"]) or not words:
            continue
        path, command = resolve(words)
        known = option_names(command, hidden=True) | {"-h", "--help"}
        for word in words[len(path) :]:
            if word == "--":  # what follows is the wrapped command's own arguments
                break
            flag = word.strip("[]").split("=")[0]
            if flag.startswith("-") and flag != "-":
                assert flag in known, f"{page.name}: jp-migrate {' '.join(words)}: no {flag}"


def slug(heading: str) -> str:
    """The anchor python-markdown's toc (MkDocs) and GitHub both give a plain heading."""
    text = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", text)


def heading_anchor(heading: str) -> str:
    """A heading's anchor: the id it gives itself (attr_list's `{ #id }`), else its slug."""
    given = re.search(r"\{:?\s*#([\w-]+)[^}]*\}\s*$", heading)
    return given.group(1) if given else slug(heading)


def prose(page: Path) -> str:
    """PAGE without its fenced code blocks (a `#` line in one is no heading)."""
    text = page.read_text(encoding="utf-8")
    return re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)


def anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", prose(page), flags=re.MULTILINE)
    return {heading_anchor(h) for h in headings}


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_leads_to_a_file_and_a_heading(page: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        assert linked.is_file(), f"{page.name}: link to a missing {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in anchors(linked), f"{page.name}: no heading for #{anchor}"


def test_the_readme_is_a_newcomers_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert TEST_COMMAND in text
    assert "/shared" not in text  # no folder beside the clone is needed
    assert TEST_COMMAND in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_every_docs_page_is_in_the_nav() -> None:
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    for page in DOCS.glob("*.md"):
        assert re.search(rf":\s+{re.escape(page.name)}\s*$", nav, flags=re.MULTILINE), page.name


# --- SPEC references: every "SPEC §N" in the code, docs and rules names a section of
# docs/spec.md, and a Markdown page links it.

SPEC = DOCS / "spec.md"
CITING = ("jp_migrate", "docs", "README.md", "rules", "benchmarks")
NUMBER = r"\d+(?:\.\d+)*"
# A document's name starts a chain of section numbers ("SPEC §1, §2; RFD D31"): the
# numbers up to the next name, closing parenthesis or blank line are that document's.
TOKEN = re.compile(
    rf"(?P<name>\bSPEC\b|\bRFD\b|\bseed\b)(?:\s+section\s+(?P<section>{NUMBER}))?"
    rf'|§(?P<number>{NUMBER})(?:\s+"(?P<title>[^"\n]+)")?'
)


def spec_headings() -> list[tuple[int, str, str, str]]:
    """docs/spec.md's section headings: (level, number, title, anchor)."""
    return [
        (len(level), number, title, anchor)
        for level, number, title, anchor in re.findall(
            rf"^(#{{2,6}}) §({NUMBER}) (.+?)(?: \{{ #([\w-]+) \}})?$",
            prose(SPEC),
            flags=re.MULTILINE,
        )
    ]


def spec_sections() -> dict[str, str]:
    """Section number → its heading and those of its subsections, for a cited title."""
    headings = spec_headings()
    return {
        number: " ".join(t for _, n, t, _ in headings if f"{n}.".startswith(f"{number}."))
        for _, number, _, _ in headings
    }


def section_anchor(number: str) -> str:
    return "section-" + number.replace(".", "-")


class Citation(NamedTuple):
    """One section a text cites."""

    line: int
    number: str | None  # None: a "SPEC" naming no section, or a § naming no document
    title: str | None  # a quoted title after the number: SPEC §3 "Layout"
    start: int  # the offset of the § (or of SPEC) in the text


def spec_citations(text: str, *, own: bool = False) -> Iterator[Citation]:
    """The SPEC sections TEXT cites; with OWN (the spec itself), every § is one."""
    owner: str | None = None  # the document the numbers of the current chain belong to
    waiting: Citation | None = None  # a SPEC not yet followed by its number
    end = 0
    for m in TOKEN.finditer(text):
        between, end = text[end : m.start()], m.end()
        line = text.count("\n", 0, m.start()) + 1
        if waiting and (m["name"] or between.strip()):
            yield waiting
        waiting = None
        if ")" in between or "\n\n" in between:
            owner = None
        if m["name"] and not own:
            owner = m["name"]
            if m["name"] == "SPEC" and m["section"]:
                yield Citation(line, m["section"], None, m.start())
            elif m["name"] == "SPEC":
                waiting = Citation(line, None, None, m.start())
        elif m["number"] and (own or owner == "SPEC"):
            yield Citation(line, m["number"], m["title"], m.start())
        elif m["number"] and owner is None:
            yield Citation(line, None, None, m.start())
    if waiting:
        yield waiting


def citing_files() -> Iterator[Path]:
    for name in CITING:
        path = REPO / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file() and "__pycache__" not in file.parts:
                yield file


def test_the_spec_numbers_each_section_and_gives_it_a_fixed_anchor() -> None:
    headings = spec_headings()
    numbers = [number for _, number, _, _ in headings]
    assert [n for n in numbers if "." not in n] == ["1", "2", "3", "4", "5"]
    for level, number, title, anchor in headings:
        assert anchor == section_anchor(number), f"§{number} {title}: anchor {anchor!r}"
        assert level == 2 + number.count("."), f"§{number} {title}: a level-{level} heading"
        *parent, last = number.split(".")
        before = ".".join([*parent, str(int(last) - 1)])
        assert last == "1" or before in numbers, f"§{number} follows no §{before}"
    unnumbered = [
        h for h in re.findall(r"^#{2,6} (.+)$", prose(SPEC), flags=re.MULTILINE) if h[0] != "§"
    ]
    assert not unnumbered, f"docs/spec.md: headings without a number: {unnumbered}"


def test_every_spec_reference_names_a_section_the_spec_has() -> None:
    sections = spec_sections()
    wrong: list[str] = []
    for file in citing_files():
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        where = file.relative_to(REPO)
        for c in spec_citations(text, own=file == SPEC):
            if c.number is None:
                wrong.append(f"{where}:{c.line}: a SPEC without a section, or a § without SPEC")
            elif c.number not in sections:
                wrong.append(f"{where}:{c.line}: SPEC §{c.number}: no such section")
            elif c.title and c.title.lower() not in sections[c.number].lower():
                wrong.append(f'{where}:{c.line}: SPEC §{c.number} has no "{c.title}"')
    assert not wrong, "\n".join(wrong)


def test_a_page_cites_the_spec_with_a_link_to_the_section() -> None:
    unlinked: list[str] = []
    for page in markdown_files():
        if page == SPEC:
            continue
        text = page.read_text(encoding="utf-8")
        links = [
            (m.start(1), m.end(1), m[2]) for m in re.finditer(r"\[([^\]]*)\]\(([^)\s]+)\)", text)
        ]
        for c in spec_citations(text):
            if c.number is None:
                continue  # the test above names it
            anchor = f"spec.md#{section_anchor(c.number)}"
            if not any(
                start <= c.start < end and target.endswith(anchor) for start, end, target in links
            ):
                unlinked.append(
                    f"{page.relative_to(REPO)}:{c.line}: SPEC §{c.number} is not a link to {anchor}"
                )
    assert not unlinked, "\n".join(unlinked)


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("(SPEC §1, §2, §5; RFD D31 for MCP)", ["1", "2", "5"]),
        ("(SPEC §2 expected differences, §5 comparison)", ["2", "5"]),
        ('(SPEC §3 "Older layout")', ["3 Older layout"]),
        ("of one tool run (jp-migrate SPEC section 5)", ["5"]),
        ("[SPEC §2.3](spec.md#section-2-3)'s three", ["2.3"]),
        ("RFD 058 §3 and RFD D31", []),
        ("(RFD D31's unwrap guard, SPEC §7)", ["7"]),
        ("a JSON document (SPEC: object, array)", [None]),
        ("(SPEC §2) and then §3", ["2", None]),
        ("the SPEC", [None]),
    ],
)
def test_spec_citations_are_read_as_a_person_reads_them(text: str, cited: list[str | None]) -> None:
    found = [c.number and " ".join(filter(None, (c.number, c.title))) for c in spec_citations(text)]
    assert found == cited
