"""Gate: a conversation cannot create a concept page."""

from __future__ import annotations

from sentinel.paths import Role, role_of
from sentinel.settings import Settings


def wiki_creation_refusal(relpath: str, exists: bool, settings: Settings) -> str:
    """Why a model may not create ``relpath``, or "" when it may.

    Protects the meaning of wiki/: "concepts the sources define". Pages appear there only when the maintenance
    pass finds two defining sentences, or when the person creates the file (clicking the faded link in
    Obsidian). Editing a wiki page that already exists is allowed.
    """
    if role_of(relpath, settings) is Role.WIKI and not exists:
        return (
            f"'{relpath}' would be a new page under {settings.folders.wiki}/, which holds only concepts the sources "
            "define; a conversation cannot create one. The person can create it by clicking the link in Obsidian, "
            f"after which it can be edited here; or keep the text under {settings.folders.notes}/."
        )
    return ""
