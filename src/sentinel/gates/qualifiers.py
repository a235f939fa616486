"""The qualifiers gate: names for different platforms, devices or products are two things.

Protects against merging the variants of one thing: ``Android`` / ``Android TV``, ``Web app`` / ``Desktop
app``, ``Obsidian for iOS`` / ``Obsidian for Android``, ``Sync for teams`` / ``Publish para equipos``. Names
are compared by the platform and product words they carry (en/de/es/tr, one meaning per word: ``Handy``,
``móvil`` and ``mobile`` are all "mobile"), and refused when both carry some and the sets differ. A name with
none (``Obsidian`` / ``Obsidian for Android``) is the shape gate's case; a German compound (``Webseiten``) is
not split, so it counts as carrying none: the gate then stays silent and the model is asked.
"""

from __future__ import annotations

from sentinel.gates import Verdict
from sentinel.vault.name_words import marked_apart, table

_QUALIFIERS = table(
    {
        "android": "android",
        "ios": "ios iphone",
        "ipados": "ipados ipad",
        "macos": "macos mac osx",
        "windows": "windows",
        "linux": "linux",
        "web": "web browser navegador tarayıcı",
        "desktop": "desktop escritorio masaüstü",
        "mobile": "mobile mobil móvil handy smartphone phone teléfono telefon",
        "tablet": "tablet",
        "tv": "tv",
        "watch": "watch",
        "cli": "cli terminal",
        "api": "api",
        "server": "server servidor sunucu",
        "cloud": "cloud nube bulut",
        "headless": "headless",
        "sync": "sync",
        "publish": "publish",
        "clipper": "clipper",
    }
)


def same_qualifiers(a: str, b: str) -> Verdict[str]:
    """Refused when both names carry platform or product words and those words differ."""
    if marked_apart(a, b, _QUALIFIERS):
        return Verdict(False, f"'{a}' / '{b}' name different platforms or products")
    return Verdict(True)
