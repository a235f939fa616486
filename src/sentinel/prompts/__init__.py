"""The prompts Sentinel ships, as package data (found wherever ``sentinel`` runs from, not only the repository),
and the one function that reads a prompt file: every door (Open WebUI's model, ``sentinel chat``, MCP's
``ladder`` prompt) sends what ``read_prompt`` returns, so they cannot drift apart.

A prompt tells the model the status markers through the slot ``{status_markers}``, filled from ``MEANINGS``
(``sentinel.tools.policy``) when it is read: a new marker is written in ``policy`` and reaches every prompt.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sentinel.errors import NotFound
from sentinel.tools.policy import MEANINGS

if TYPE_CHECKING:  # settings imports this package for the paths above
    from sentinel.settings import Folders

HOME = Path(__file__).resolve().parent
SYSTEM_PROMPT = HOME / "system_prompt.txt"
RESEARCH_PROMPT = HOME / "system_prompt_research.txt"
MARKERS_SLOT = "{status_markers}"


class PromptMissing(NotFound, FileNotFoundError):
    """A prompt file the settings name cannot be read (no ``folders``: the default names, as the file has them)."""


def status_lines() -> str:
    """Every status marker and what the model does on it, one a line, in ``Status`` order."""
    return "\n".join(f"{status} {meaning}" for status, meaning in MEANINGS.items())


def read_prompt(path: Path, setting: str, folders: Folders | None = None) -> str:
    """The text of the prompt file ``path`` (stripped), its status-marker slot filled, the folders it names as
    ``folders`` names them; ``setting`` is the environment variable that names the file, for the message when it
    cannot be read."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise PromptMissing(
            f"cannot read the prompt file {path} ({err.strerror}; relative paths start at {Path.cwd()}): set "
            f"{setting} to the file, or unset it for the one the package ships"
        ) from err
    text = text.replace(MARKERS_SLOT, status_lines())
    return (folders.in_text(text) if folders else text).strip()
