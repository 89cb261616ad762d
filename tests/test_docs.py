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
