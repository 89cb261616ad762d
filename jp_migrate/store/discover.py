"""Find conversations: PATH (workspace, storage root or one conversation) → what to migrate.

Layout per SPEC §3: `<root>/conversations/<id>[-<slug>]/{metadata,events}.json`,
archived ones under `conversations/.archive/`. Discovery only looks at names and
file types; reading and judging the files is `load`'s job.
"""

from __future__ import annotations

import itertools
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from jp_migrate.errors import JpMigrateError
from jp_migrate.files.workspace import JP_DIR, find_workspace
from jp_migrate.store.userlocal import lock_roots, user_dirs, workspace_storages

if TYPE_CHECKING:  # the report model: only a run that reports loads pydantic
    from jp_migrate.contract.report import StoreFile

CONVERSATIONS = "conversations"
ARCHIVE = ".archive"
EVENTS = "events.json"
METADATA = "metadata.json"
LEGACY_MESSAGES = "messages.json"


@dataclass(frozen=True)
class StorageRoot:
    path: Path  # the directory holding `conversations/` (a workspace's `.jp/`, or user storage)
    shown: str  # how the user named it, for report paths
    checkout: Path | None = None  # for user storage found from a workspace PATH: that workspace

    @cached_property
    def fspath(self) -> str:
        """`path` as a string: what the per-conversation paths are built from (see Conversation)."""
        return os.fspath(self.path)

    @cached_property
    def lock_roots(self) -> tuple[str, ...]:
        """The directories whose `locks/` a `jp` may lock these conversations in (see userlocal).

        Real paths, once each: the one lock file named twice would be taken twice,
        and the second time found held (by us).
        """
        roots = list(lock_roots(self.path))
        if self.checkout is not None:
            roots.append(os.fspath(self.checkout / JP_DIR))
        return tuple(dict.fromkeys(os.path.realpath(root) for root in roots))

    @cached_property
    def workspace(self) -> Path | None:
        """The workspace root (for file URIs): a `.jp/`'s parent, or a user-local directory's checkout.

        User storage found from a workspace PATH belongs to that checkout (JP's
        worktrees of one workspace share it, RFD 031); named itself, its checkout
        is looked up in its registry.
        """
        if self.checkout is not None:
            return self.checkout
        if self.path.name == JP_DIR:
            return Path(os.path.abspath(self.path.parent))
        storages = workspace_storages(self.path)  # empty unless a JP user-local directory
        return Path(os.path.abspath(storages[0].parent)) if storages else None


@dataclass(frozen=True)
class Conversation:
    """One conversation directory. Its file paths are strings, not `Path`s: a run builds
    and uses several per conversation, and building and converting pathlib objects
    took a fifth of the main thread's time in a profile of a 1,000-conversation run."""

    root: StorageRoot
    name: str  # the directory name: `<id>[-<slug>]`
    archived: bool

    @property
    def id(self) -> str:
        """JP's conversation id: the directory name up to the first `-` (`ConversationId::try_from_dirname`)."""
        return self.name.split("-", 1)[0]

    @cached_property
    def relative(self) -> str:
        """The directory relative to the storage root, `/`-separated (manifest keys)."""
        parts = [CONVERSATIONS, ARCHIVE, self.name] if self.archived else [CONVERSATIONS, self.name]
        return "/".join(parts)

    @cached_property
    def directory(self) -> str:
        return os.path.join(self.root.fspath, self.relative)

    @cached_property
    def events(self) -> str:
        return os.path.join(self.directory, EVENTS)

    @cached_property
    def shown(self) -> str:
        """The events file as the user would name it, relative to the PATH they gave
        (normalised: `.` gives `.jp/…`, not `./.jp/…`)."""
        return os.path.normpath(os.path.join(self.root.shown, self.relative, EVENTS))


@dataclass(frozen=True)
class Rejected:
    """A directory under `conversations/` that is not migrated, and why."""

    conversation: Conversation
    status: str  # "error" or "skipped"
    message: str


Found = Conversation | Rejected


def resolve(path: Path) -> tuple[StorageRoot, str | None]:
    """The storage root PATH belongs to, and the one conversation it names (or None for all).

    PATH may be a workspace, a storage root, its `conversations/` (the whole store),
    `conversations/.archive` (every archived conversation) or one conversation directory.

    The root's `path` is absolute, whatever the spelling of PATH (`.`, `..`, a
    relative name): one store is one set of run records and locks however it is
    named, and a conversation directory is known by its parents' names. Report
    paths keep the user's spelling. Raises JpMigrateError when PATH is none of
    the three accepted kinds.
    """
    shown = str(path)
    absolute = _absolute(path)
    _refuse_link(absolute / JP_DIR, os.path.join(shown, JP_DIR))
    _refuse_link(absolute / JP_DIR / CONVERSATIONS, os.path.join(shown, JP_DIR, CONVERSATIONS))
    if (absolute / JP_DIR / CONVERSATIONS).is_dir():
        return StorageRoot(absolute / JP_DIR, os.path.join(shown, JP_DIR)), None
    _refuse_link(absolute / CONVERSATIONS, os.path.join(shown, CONVERSATIONS))
    if (absolute / CONVERSATIONS).is_dir():
        return StorageRoot(absolute, shown), None
    if (absolute / JP_DIR).is_dir():  # a workspace with no conversations yet
        return StorageRoot(absolute / JP_DIR, os.path.join(shown, JP_DIR)), None
    parent = absolute.parent
    if absolute.is_dir() and parent.name == ARCHIVE and parent.parent.name == CONVERSATIONS:
        return StorageRoot(parent.parent.parent, _shown_above(path, 3)), absolute.name
    if absolute.is_dir() and parent.name == CONVERSATIONS and absolute.name == ARCHIVE:
        return StorageRoot(parent.parent, _shown_above(path, 2)), ARCHIVE  # every archived one
    if absolute.is_dir() and parent.name == CONVERSATIONS:
        return StorageRoot(parent.parent, _shown_above(path, 2)), absolute.name
    if absolute.is_dir() and absolute.name == CONVERSATIONS:  # a store's conversations/ itself
        _refuse_link(absolute, shown)
        return StorageRoot(parent, _shown_above(path, 1)), None
    if not path.exists():
        raise JpMigrateError(f"{path}: no such file or directory")
    if absolute.is_file() and absolute.parent.parent.name in (CONVERSATIONS, ARCHIVE):
        raise JpMigrateError(
            f"{path}: a file: name the conversation directory that holds it, {path.parent}"
        )
    raise JpMigrateError(
        f"{path}: not a workspace (with .jp/), a storage root (with conversations/), "
        "its conversations/ or a conversation directory (inside conversations/)"
    )


def _refuse_link(path: Path, shown: str) -> None:
    """A store's own directories are never reached through a link: what is migrated, backed
    up and locked would then lie outside the directory the user named."""
    if path.is_symlink():
        raise JpMigrateError(
            f"{shown}: a symlink (to {os.readlink(path)}): not followed; "
            "name the directory it points to to migrate that store"
        )


def _absolute(path: Path) -> Path:
    """PATH made absolute as the system reads it: `..` after a symlink is the link
    target's parent, which cutting the text (`abspath`) would not give."""
    return Path(os.path.realpath(path) if ".." in path.parts else os.path.abspath(path))


def _shown_above(path: Path, levels: int) -> str:
    """The directory `levels` above a conversation PATH, spelt as the user spelt PATH."""
    above = _absolute(path).parents[levels - 1]
    shown = str(path).rstrip("/")
    for _ in range(levels):
        shown = os.path.dirname(shown)
    if _absolute(Path(shown or ".")) == above:
        return shown
    # `.`, `..`, `x/..`: the user's spelling has no such parent to cut off
    return str(above) if path.is_absolute() else os.path.relpath(above)


def in_shard(conversation_id: str, shard: tuple[int, int] | None) -> bool:
    """Stable: CRC-32 of the conversation id, so every machine picks the same subset.

    By the id, not the whole directory name: the copies of one conversation in
    a workspace and in its user-local storage share a lock, so they belong to
    the same shard (two shards run at once would each find it held).
    """
    if shard is None:
        return True
    index, count = shard
    return zlib.crc32(os.fsencode(conversation_id)) % count == index - 1


def _classify(conversation: Conversation, is_symlink: bool) -> Found:
    """Only what the directory listing shows; the files inside are `layout`'s to judge."""
    if is_symlink:
        target = Path(os.path.realpath(conversation.directory))
        root = Path(os.path.realpath(conversation.root.path))
        if not target.is_relative_to(root):
            return Rejected(
                conversation,
                "error",
                f"symlink to {target}, outside the storage root: not followed",
            )
        return Rejected(conversation, "skipped", "symlinked conversation directory: not followed")
    return conversation


def _entries(root: StorageRoot, archived: bool) -> Iterator[tuple[Conversation, bool]]:
    """(conversation, is it a symlink) for every directory entry, from one listing (no stat each)."""
    base = root.path / CONVERSATIONS / (ARCHIVE if archived else "")
    if archived:
        _refuse_link(base, os.path.join(root.shown, CONVERSATIONS, ARCHIVE))
    try:
        with os.scandir(base) as listing:
            entries = sorted(
                (e.name, e.is_symlink())
                for e in listing
                if e.is_symlink() or e.is_dir(follow_symlinks=False)
            )
    except FileNotFoundError:
        return
    except OSError as exc:
        raise JpMigrateError(f"{base}: cannot list: {exc.strerror or exc}") from None
    for name, is_symlink in entries:
        if name.startswith("."):
            continue  # `.archive` itself, JP's `.trash` (conversations it set aside); nothing of ours
        yield Conversation(root, name, archived), is_symlink


def user_local_roots(path: Path) -> list[StorageRoot]:
    """For a workspace PATH (a directory with `.jp/`): JP's user-local storage roots of it.

    A workspace's `jp` keeps conversations there, in a `conversations/` of the
    same layout: its local ones, and with JP's RFD 031 a durable copy of every
    one in `.jp/` too. They belong to the workspace as much as those in `.jp/`
    do, and the roots made here know that workspace (`checkout`).
    """
    if not (path / JP_DIR).is_dir():
        return []
    checkout = Path(os.path.abspath(path))
    return [
        StorageRoot(directory, str(directory), checkout)
        for directory in user_dirs(path / JP_DIR)
        if (directory / CONVERSATIONS).is_dir()
    ]


def _workspace_above(path: Path) -> Path | None:
    """For a directory inside a workspace (not a store itself): that workspace, found
    upward as git finds `.git`, spelt as the user spelt PATH (relative stays relative)."""
    if not path.is_dir():
        return None
    absolute = _absolute(path)
    found = find_workspace(absolute)
    if found is None or found == absolute:
        return None
    return found if path.is_absolute() else Path(os.path.relpath(found))


def resolve_all(path: Path, *, user_local: bool = True) -> list[tuple[StorageRoot, str | None]]:
    """`resolve`, plus a workspace's user-local storage roots (all their conversations).
    A directory inside a workspace stands for that workspace."""
    try:
        root, only = resolve(path)
    except JpMigrateError:
        above = _workspace_above(path)
        if above is None:
            raise
        path = above
        root, only = resolve(path)
    extra = user_local_roots(path) if user_local and only is None else []
    return [(root, only), *((user, None) for user in extra)]


def discover(
    paths: Sequence[Path],
    *,
    exclude_archived: bool = False,
    shard: tuple[int, int] | None = None,
    user_local: bool = True,
    errors: list[tuple[Path, str]] | None = None,
) -> list[Found]:
    """Every conversation under PATHs, once each, in a stable order.

    A workspace PATH includes its user-local storage (see `user_local_roots`)
    unless `user_local` is False. A PATH that cannot be resolved or listed goes
    to `errors` (PATH, reason) and the others are still found; without
    `errors` it raises.
    """
    found: dict[str, Found] = {}
    for path in paths:
        try:
            for root, only in resolve_all(path, user_local=user_local):
                _collect(found, path, root, only, exclude_archived, shard)
        except JpMigrateError as exc:
            if errors is None:
                raise
            errors.append((path, str(exc).removeprefix(f"{path}: ")))
    return list(found.values())


def path_error(path: Path, reason: str) -> StoreFile:
    """A PATH that names no store (or cannot be listed): an error, the other PATHs still done."""
    from jp_migrate.contract.report import StoreFile

    return StoreFile(path=str(path), conversation="", status="error", message=reason)


def _collect(
    found: dict[str, Found],
    path: Path,
    root: StorageRoot,
    only: str | None,
    exclude_archived: bool,
    shard: tuple[int, int] | None,
) -> None:
    candidates: Iterator[tuple[Conversation, bool]]
    if only == ARCHIVE:  # PATH is `conversations/.archive`
        candidates = _entries(root, True)
    elif only is not None:
        archived = _absolute(path).parent.name == ARCHIVE
        candidates = iter([(Conversation(root, only, archived), path.is_symlink())])
    else:
        candidates = _entries(root, False)
        if not exclude_archived:
            candidates = itertools.chain(candidates, _entries(root, True))
    real_root = os.path.realpath(root.path)
    for conversation, is_symlink in candidates:
        if not in_shard(conversation.id, shard):
            continue
        key = real_root + "\0" + conversation.relative
        if key not in found:
            found[key] = _classify(conversation, is_symlink)
