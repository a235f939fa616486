"""What the surfaces tests and the screenshot script share: the slice of the eval vault they serve, the page texts
they look for, the served API's addresses and keys, and Debian's headless Chromium."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sentinel.settings import Settings
from tests.support.embedder import E5_DIR

# The same plugins in English, German, Spanish and Turkish (their pages share permalink: plugins/...).
SLICE = [
    "en/Plugins/Command palette.md",
    "en/Plugins/Audio recorder.md",
    "en/Plugins/Random note.md",
    "en/Plugins/File recovery.md",
    "en/Plugins/Templates.md",
    "en/User interface/Hotkeys.md",
    "de/Erweiterungen/Befehlspalette.md",
    "de/Erweiterungen/Audio-Rekorder.md",
    "de/Erweiterungen/Datenwiederherstellung.md",
    "de/Erweiterungen/Vorlagen.md",
    "es/Complementos/Paleta de comandos.md",
    "es/Complementos/Grabadora de audio.md",
    "es/Complementos/Nota aleatoria.md",
    "es/Complementos/Plantillas.md",
    "tr/Eklentiler/Komut Paleti.md",
    "tr/Eklentiler/Ses kaydedicisi.md",
    "tr/Eklentiler/Dosya Kurtarma.md",
    "tr/Eklentiler/Rastgele Not.md",
    # English-only pages: with translations shown once per family, paging needs more than ten families
    "en/Plugins/Word count.md",
    "en/Plugins/Outline.md",
    "en/Plugins/Bookmarks.md",
    "en/Plugins/Tags view.md",
    "en/Plugins/Page preview.md",
    "en/Plugins/Workspaces.md",
]
QUOTED = "The Command palette plugin lets you run any command directly from your keyboard."
SEEDLING = "notes/Palette ideas.md"


@dataclass
class Served:
    url: str
    settings: Settings
    read_key: str
    write_key: str
    concept: str  # vault path of the generated concept page


def settings_in(root: Path) -> Settings:
    return Settings(vault=root / "vault", index_path=root / "index.db", embed_model_dir=E5_DIR, _env_file=None)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
