"""The one place that decides where things are.

Every entry point (CLI, API, worker, chat, tool) asks these functions; none computes a path itself. Two
components once derived the index path separately and wrote two databases for days.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import unicodedata
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path, PurePosixPath

from sentinel.errors import Refused
from sentinel.settings import Folders, Settings

MAX_NAME_BYTES = 255
MAX_PATH_CHARS = 1024


class Role(StrEnum):
    NOTE = "note"
    WIKI = "wiki"
    CONVERSATION = "conversation"
    SOURCE = "source"
    OTHER = "other"


# Roles whose links feed the graph and the growth queue. Transcripts and sources place no links.
LINK_PLACING_ROLES = frozenset({Role.NOTE, Role.WIKI, Role.OTHER})
# Roles that the summary rung shows; sources never speak as though the user endorsed them.
SUMMARY_RUNG_ROLES = frozenset({Role.NOTE, Role.WIKI, Role.OTHER})
# Roles whose paragraphs may define a concept: never derived pages, never transcripts.
DEFINING_ROLES = frozenset({Role.NOTE, Role.SOURCE, Role.OTHER})
# Roles the maintenance pass summarises and extracts concepts from; transcripts are silent.
ANALYSED_ROLES = frozenset({Role.NOTE, Role.WIKI, Role.SOURCE, Role.OTHER})
# Roles whose pages may receive an alias entry from name resolution: never transcripts, never source records.
ALIAS_TARGET_ROLES = frozenset({Role.NOTE, Role.WIKI, Role.OTHER})


class PathRefused(Refused, ValueError):
    """A model- or user-supplied path that may not be used, with the reason and what to do instead."""


# A top folder named by a language code (``de``, ``pt-BR``, ``zh_TW``): a vault kept in several languages.
LANGUAGE_FOLDER = re.compile(r"^[a-z]{2}(?:[-_][A-Za-z]{2})?$")


def folder_language(path: str) -> str:
    """The language folder a page sits in (``de/…``), or "" when its top folder names no language."""
    top, sep, _ = path.partition("/")
    return top.lower().replace("_", "-") if sep and LANGUAGE_FOLDER.match(top) else ""


def index_path(settings: Settings) -> Path:
    """The SQLite index file: the ``index_path`` setting, else ``<vault>/.sentinel/index.db``."""
    if settings.index_path is not None:
        return settings.index_path.expanduser().resolve()
    return settings.vault.expanduser().resolve() / ".sentinel" / "index.db"


def vectors_export_dir(settings: Settings) -> Path:
    """Where ``sentinel export-vectors`` writes the compact vector store the Obsidian plugin searches on the
    device: inside the vault's ``.sentinel/`` folder, so it syncs with the vault (and is never vault content)."""
    return settings.vault.expanduser().resolve() / ".sentinel" / "vectors"


def ledger_dir(settings: Settings) -> Path:
    """Where each maintenance pass's review ledger is kept: beside the index, outside the vault's content."""
    return index_path(settings).parent / "ledger"


def folder_key(name: str) -> str:
    """A folder name as a case-insensitive file system sees it: macOS and Windows ignore case (and macOS the
    Unicode normal form), Windows drops trailing dots and spaces, so ``Conversations``, ``conversations.`` and
    ``conversations `` are all the ``conversations`` folder there."""
    return unicodedata.normalize("NFC", name).rstrip(" .").casefold()


def _role_folders(folders: Folders) -> dict[str, tuple[str, Role]]:
    """Each role folder by its ``folder_key``: (its name as configured, its role)."""
    return {
        folder_key(name): (name, role)
        for name, role in (
            (folders.notes, Role.NOTE),
            (folders.wiki, Role.WIKI),
            (folders.conversations, Role.CONVERSATION),
            (folders.sources, Role.SOURCE),
        )
    }


def _top_folder(relpath: str) -> str:
    return relpath.split("/", 1)[0] if "/" in relpath else ""


def _role_of_top(top: str, role_folders: dict[str, tuple[str, Role]]) -> Role:
    found = role_folders.get(folder_key(top)) if top else None
    return found[1] if found else Role.OTHER


def role_of(relpath: str, settings: Settings) -> Role:
    """The folder role of a vault-relative POSIX path, decided by its first component compared as a
    case-insensitive file system would (``folder_key``): the transcript gate must hold on macOS and Windows too."""
    return _role_of_top(_top_folder(relpath), _role_folders(settings.folders))


def role_lookup(settings: Settings) -> Callable[[str], Role]:
    """``role_of`` for many paths under the same settings (a sync compares every file's): the role folders keyed
    once and each top folder decided once, by ``role_of``'s own rule. At a million pages keying the role folders
    per file was 40% of a no-op sync's CPU time."""
    role_folders = _role_folders(settings.folders)
    by_top: dict[str, Role] = {}

    def lookup(relpath: str) -> Role:
        top = _top_folder(relpath)
        role = by_top.get(top)
        if role is None:
            role = by_top[top] = _role_of_top(top, role_folders)
        return role

    return lookup


def role_folder_misspelt(relpath: str, folders: Folders) -> str:
    """Why a path's top folder may not be used, when it differs from a role folder only by case, trailing dots
    or spaces (on Linux it would be a second folder, on macOS or Windows the same one), else ""."""
    top = _top_folder(relpath)
    found = _role_folders(folders).get(folder_key(top)) if top else None
    if found is None or found[0] == top:
        return ""
    return (
        f"'{relpath}' starts with the folder '{top}', which differs from the role folder '{found[0]}' only by "
        f"case, trailing dots or spaces: use '{found[0]}/' itself"
    )


PAGE_SUFFIX = ".md"


def is_page_file(name: str) -> bool:
    """Whether a file name or path names a page: ``.md`` in any case (``Note.MD`` is a page on every system)."""
    return name.lower().endswith(PAGE_SUFFIX)


def without_md(path: str) -> str:
    """A page path or link target without its ``.md`` (in any case): the one place it is taken off."""
    return path[: -len(PAGE_SUFFIX)] if is_page_file(path) else path


def with_md(target: str) -> str:
    """A page path from a link target that may leave out ``.md``."""
    return target if is_page_file(target) else target + PAGE_SUFFIX


def is_hidden(name: str) -> bool:
    """Hidden files and folders (.obsidian/, .git/, .trash/, .sentinel/) are never part of the vault."""
    return name.startswith(".")


def not_vault_content(relpath: str) -> str:
    """Why a vault-relative POSIX path is not vault content, or "" when it is: the one definition, used by the
    jail (what may be written) and the vault walk (what is indexed)."""
    parts = relpath.split("/")
    if any(is_hidden(part) for part in parts):
        return f"'{relpath}' is inside a hidden folder or names a hidden file, which is not vault content"
    if not is_page_file(parts[-1]):
        return f"'{relpath}' is not a markdown page: only .md files are vault pages"
    return ""


def _literal_parts(user_path: str) -> list[str]:
    """The components of a model- or user-supplied path, or ``PathRefused`` for anything that is no vault path."""
    if not isinstance(user_path, str) or not user_path.strip():
        raise PathRefused("the path is empty: give a vault-relative path such as notes/Topic.md")
    if "\x00" in user_path:
        raise PathRefused("the path contains a NUL byte: remove it")
    try:
        user_path.encode("utf-8")
    except UnicodeEncodeError as err:
        raise PathRefused(
            f"the path holds a lone surrogate at character {err.start} ({user_path[err.start]!a}), which no file "
            "name can hold: send the path as proper UTF-8 text"
        ) from err
    raw = unicodedata.normalize("NFC", user_path.strip().replace("\\", "/"))
    if len(raw) > MAX_PATH_CHARS:
        raise PathRefused(f"the path is {len(raw)} characters long; the limit is {MAX_PATH_CHARS}")
    if raw.startswith("/") or re.match(r"^[A-Za-z]:", raw):
        raise PathRefused(f"'{raw}' is absolute: give it relative to the vault root, e.g. notes/Topic.md")
    parts = [p for p in PurePosixPath(raw).parts if p not in ("", ".")]
    if ".." in parts:
        raise PathRefused(f"'{raw}' climbs out with '..': give a path inside the vault")
    if not parts:
        raise PathRefused("the path names the vault root itself: name a page, e.g. notes/Topic.md")
    for part in parts:
        if len(part.encode()) > MAX_NAME_BYTES:
            raise PathRefused(f"the name '{part[:40]}...' is longer than {MAX_NAME_BYTES} bytes: shorten it")
    return parts


def jail(vault: Path, user_path: str, *, must_exist: bool = False, folders: Folders | None = None) -> tuple[Path, str]:
    """Resolve a vault-relative path given by a model or user, or refuse it with a specific reason.

    Protects the vault boundary: ``..``, absolute paths, NUL bytes, hidden folders, over-long names, non-.md
    targets, symlinks that lead outside the vault or loop, FIFOs, sockets and devices, and (given ``folders``)
    names that only differ from a role folder by case, trailing dots or spaces are all refused. Returns the
    absolute path and the vault-relative POSIX path *after* symbolic links are followed, because that is the
    page an operation touches: every gate judges it, so ``notes/convlink/t.md`` (``convlink -> ../conversations``)
    is a transcript.
    """
    literal = "/".join(_literal_parts(user_path))
    if problem := not_vault_content(literal):
        raise PathRefused(problem)
    if folders is not None and (problem := role_folder_misspelt(literal, folders)):
        raise PathRefused(problem)
    root = vault.resolve()
    resolved = Path(os.path.realpath(root / literal))
    if resolved != root and root not in resolved.parents:
        raise PathRefused(f"'{literal}' leads outside the vault through a symbolic link")
    rel = resolved.relative_to(root).as_posix()
    if rel != literal and (problem := not_vault_content(rel)):
        raise PathRefused(f"'{literal}' is a symbolic link to {problem}")
    if folders is not None and (problem := role_folder_misspelt(rel, folders)):
        raise PathRefused(problem)
    target = root / rel
    _refuse_what_is_no_page(root / literal, literal)
    if must_exist and not target.is_file():
        raise PathRefused(f"'{literal}' does not exist: check the path with listing or search")
    return target, rel


def _refuse_what_is_no_page(path: Path, literal: str) -> None:
    """A symbolic link loop, a FIFO, socket or device at ``path`` is never a page to read or to write over."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return  # a new page
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise PathRefused(
                f"'{literal}' is a symbolic link that loops (or nests too deep) and leads to no file: fix or delete "
                "the link in a file manager, or choose another path"
            ) from err
        if err.errno == errno.ENAMETOOLONG:
            raise PathRefused(f"'{literal}' is too long for the file system: shorten the name") from err
        return  # permission errors are the primitive's to report, naming the fix
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise PathRefused(
            f"'{literal}' is {kind}, not a page: Sentinel never reads or replaces it; choose another path"
        )


def page_name(relpath: str) -> str:
    """The name Obsidian shows for a page: its file name without .md."""
    return without_md(relpath.rsplit("/", 1)[-1])


_UNSAFE_NAME = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]')


def safe_file_stem(title: str) -> str:
    """A file name stem Obsidian accepts for a title: no characters that links or filesystems reserve."""
    stem = _UNSAFE_NAME.sub(" ", unicodedata.normalize("NFC", title)).strip(" .")
    stem = re.sub(r"\s+", " ", stem)
    while len(stem.encode()) > MAX_NAME_BYTES - 3:
        stem = stem[:-1]
    return stem or "Untitled"


def note_path(subject: str, settings: Settings) -> str:
    """Where a saved note about ``subject`` lands: ``notes/<subject>.md``."""
    return f"{settings.folders.notes}/{safe_file_stem(subject)}.md"


def concept_path(name: str, settings: Settings) -> str:
    """Where the maintenance pass writes the concept page for ``name``: ``wiki/<name>.md``."""
    return f"{settings.folders.wiki}/{safe_file_stem(name)}.md"


def sources_folder(settings: Settings) -> str:
    """The folder source records and pasted material live in: the only folder the Searcher writes to."""
    return settings.folders.sources


def source_record_path(question: str, settings: Settings) -> str:
    """Where the source record of a research question lands: ``sources/<question>.md``, one file per question
    (the same question asked again, spacing and case aside, lands in the same file and refreshes it)."""
    words = " ".join(unicodedata.normalize("NFC", question).split())
    return f"{sources_folder(settings)}/{safe_file_stem(words.casefold())}.md"


def transcript_folder(settings: Settings) -> str:
    """The folder transcripts are written to (only by the capture path)."""
    return settings.folders.conversations


def transcript_path(name: str, settings: Settings) -> str:
    """The vault path of the transcript called ``name`` (a new one's ``<date>-<n>``, or the target of a note's
    record line: only its last component counts, transcripts are never in subfolders)."""
    return f"{transcript_folder(settings)}/{without_md(name.strip().rsplit('/', 1)[-1])}{PAGE_SUFFIX}"


def keys_path(settings: Settings) -> Path:
    """The API key file: the ``api_keys_file`` setting, else ``api-keys.json`` beside the index."""
    if settings.api_keys_file is not None:
        return settings.api_keys_file.expanduser().resolve()
    return index_path(settings).parent / "api-keys.json"


def probe_record_path(settings: Settings) -> Path:
    """Where setup records the tool-calling probe's answer for a model, beside the index (it outlives restarts)."""
    return index_path(settings).parent / "answer-probe.json"


def answer_record_dir(settings: Settings) -> Path:
    """Where each chat's answers are recorded with what they rested on (a later "save this" keeps those quotes),
    beside the index."""
    return index_path(settings).parent / "answers"


def maintain_lock_path(settings: Settings) -> Path:
    """The file a maintenance pass holds locked so two passes never work on one index at once."""
    return index_path(settings).with_name(index_path(settings).name + ".maintain.lock")


def chat_prefix_path(settings: Settings) -> Path:
    """Where the API's gateway records the Sentinel chat's prefix (system message and tool schemas as Open WebUI
    sent them) for the warm-up: beside the index, which the stack keeps in its data folder."""
    return index_path(settings).parent / "chat-prefix.json"


def search_store_dir(index_file: Path) -> Path:
    """Where a search process keeps the int8 vectors its view rescores from (``sentinel.search.store``): the
    index's own folder. Each process (API, worker, CLI) writes a file of its own there and unlinks it at once,
    keeping it open and mapped, so no process can change another's rows, a crash leaves nothing behind, and there
    is nothing to validate against the index (the rows are read from it together with the view's). Beside the
    index rather than in the temporary folder, which is often tmpfs: a store there would be held in memory (or
    swap), not in the page cache of the disk that already holds the index."""
    return index_file.parent
