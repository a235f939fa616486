"""Gate: a conversation cannot create a concept page."""

from __future__ import annotations

from sentinel.gates import Verdict
from sentinel.paths import Role, page_name, role_of
from sentinel.settings import Settings


def may_create(relpath: str, exists: bool, settings: Settings) -> Verdict[str]:
    """Passed when a model may create (or edit) ``relpath``; refused, saying why, for a new page under wiki/.

    Protects the meaning of wiki/: "concepts the sources define". Pages appear there only when the maintenance
    pass finds a defining sentence, or when the person creates the file (clicking the faded link in
    Obsidian). Editing a wiki page that already exists is allowed.
    """
    if role_of(relpath, settings) is Role.WIKI and not exists:
        return Verdict(
            False,
            f"'{relpath}' would be a new page under {settings.folders.wiki}/, which holds only concepts the sources "
            "define; a conversation cannot create one. The person can create it by clicking the link in Obsidian, "
            f"after which it can be edited here; or keep the text under {settings.folders.notes}/.",
        )
    return Verdict(True)


def may_relocate(old: str, new: str, settings: Settings) -> Verdict[str]:
    """Passed when a model may move ``old`` to ``new``; refused, saying why, when that creates a wiki page.

    Moving or renaming a page into wiki/ under a name it did not have there is creation by another door
    (``wiki/Real.md -> wiki/Invented.md``, then a replace fills it), so it is refused like ``write mode=create``.
    A wiki page that keeps its name (moved into a subfolder of wiki/) is the same concept and may move.
    """
    if role_of(new, settings) is not Role.WIKI:
        return Verdict(True)
    same_concept = role_of(old, settings) is Role.WIKI and page_name(old) == page_name(new)
    return Verdict(True) if same_concept else may_create(new, False, settings)
