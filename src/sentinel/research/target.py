"""Where research may write: the sources folder of a Sentinel vault, and nowhere else.

The seed's Searcher once defaulted to a folder Sentinel was not reading, wrote its records there and reported
success. Here the folder is the one ``sentinel.paths.sources_folder`` names inside the configured vault (no
second default), and the Searcher refuses to start unless that vault is one Sentinel indexes (its index file
exists where ``sentinel.paths.index_path`` puts it) and the folder is a real folder of that vault.
"""

from __future__ import annotations

import os
from pathlib import Path

from sentinel.errors import Refused
from sentinel.paths import Role, index_path, role_of, sources_folder
from sentinel.settings import Settings
from sentinel.vault.walk import VaultMissing, check_vault


class ResearchRefused(Refused, RuntimeError):
    """The Searcher will not run: the message says what is wrong with the target and how to fix it."""


def research_target(settings: Settings) -> Path:
    """The absolute sources folder research writes into, or ``ResearchRefused`` naming what is wrong."""
    try:
        vault = check_vault(settings.vault)
    except VaultMissing as err:
        raise ResearchRefused(f"research writes only into a Sentinel vault's sources folder, and {err}") from err
    index = index_path(settings)
    if not index.is_file():
        raise ResearchRefused(
            f"{vault} is not a Sentinel vault: there is no index at {index}. Research would write where Sentinel "
            "is not reading. Set SENTINEL_VAULT (and SENTINEL_INDEX_PATH) to what the tool API uses, or run "
            "`sentinel index` on this vault first"
        )
    folder = sources_folder(settings)
    if "/" in folder.strip("/") or role_of(f"{folder}/x.md", settings) is not Role.SOURCE or folder.startswith("."):
        raise ResearchRefused(
            f"the sources folder name {folder!r} is not one top-level visible folder: set "
            "SENTINEL_FOLDERS__SOURCES to a plain folder name such as 'sources'"
        )
    target = vault / folder
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise ResearchRefused(
            f"{target} is not a folder of the vault (a file or a symbolic link): research writes only into a real "
            f"'{folder}' folder inside {vault}; move that entry aside"
        )
    writable = target if target.exists() else vault
    if not os.access(writable, os.W_OK | os.X_OK):
        raise ResearchRefused(f"{writable} is not writable by this user (uid {os.getuid()}): fix its permissions")
    return target
