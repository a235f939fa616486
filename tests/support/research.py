"""What the research tests share (the research area, the Open WebUI research test): the question, the eval vault
pages the loopback site serves, the research settings they run under, and the indexed-vault maker's type."""

from __future__ import annotations

from collections.abc import Callable

from sentinel.settings import ResearchSettings, Settings

QUESTION = "How do I restore a previous version of a note from a File recovery snapshot?"
# Pages 0-2 answer the question in English, German and Turkish; page 3 is on another subject.
PAGES = [
    ("en/Plugins/File recovery.md", "en"),
    ("de/Erweiterungen/Datenwiederherstellung.md", "de"),
    ("tr/Eklentiler/Dosya Kurtarma.md", "tr"),
    ("en/User interface/Hotkeys.md", "en"),
]
# Small caps so the huge and slow pages trip them quickly; the threshold between what was measured for this
# question (docs/research.md: the Turkish page's best passage scores 0.844, the off-topic page's best 0.799).
TEST_RESEARCH = ResearchSettings(
    allow_private_addresses=True,  # the site is on loopback
    results=20,
    max_page_bytes=200_000,
    fetch_timeout_s=3.0,  # generous: a loaded machine stretches a loopback fetch
    min_similarity=0.82,
)

MakeVault = Callable[..., Settings]
