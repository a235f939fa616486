"""The opposites gate: names marked with different ends of a scale, ordinals or tiers are two things.

Protects against merging the members of a pair or a ladder: ``Dark mode`` / ``Modo claro`` (dark, light),
``Left panel`` / ``Right sidebar``, ``First steps`` / ``Second steps``, ``Free plan`` / ``Pro plan``. Names are
compared by what their marked words mean, across en/de/es/tr, so a translation keeps its mark (``Advanced
formatting syntax`` / ``Erweiterte Formatierungssyntax``: both "advanced") and is not refused. The gate refuses
only when both names carry marks and the marks differ; a name without one (``Themes`` / ``Dark themes``) is the
shape gate's case, or the model's.

The word lists are small on purpose (the inflected forms the four languages use in titles), and leave out words
that mean something else in another of the four: German ``links`` (left; English: links), ``alt`` (old; the
Alt key), Spanish ``son``, Turkish ``bir`` (one; also "a").
"""

from __future__ import annotations

from sentinel.gates import Verdict
from sentinel.vault.name_words import marked_apart, table

_MARKS = table(
    {
        "left": "left linke linken linker linkes izquierda izquierdo sol",
        "right": "right rechts rechte rechten rechter rechtes derecha derecho sağ",
        "dark": "dark dunkel dunkle dunklen dunkler dunkles oscuro oscura koyu karanlık",
        "light": "light hell helle hellen heller helles claro clara açık",
        "top": "top upper obere oberen oberer superior üst",
        "bottom": "bottom lower untere unteren unterer inferior",
        "old": "old older alte alten altes viejo vieja antiguo antigua eski",
        "new": "new newer neu neue neuen neuer neues nuevo nueva yeni",
        "public": "public öffentlich öffentliche öffentlichen público pública",
        "private": "private privat private privaten privado privada özel",
        "local": "local lokal lokale lokalen yerel",
        "remote": "remote entfernt remoto remota uzak",
        "internal": "internal intern interne internen interno interna iç",
        "external": "external extern externe externen externo externa dış",
        "incoming": "incoming eingehend eingehende eingehenden entrante entrantes gelen",
        "outgoing": "outgoing ausgehend ausgehende ausgehenden saliente salientes giden",
        "before": "before previous vorher vorherige anterior önceki",
        "after": "after next nachher nächste siguiente posterior sonraki",
        "first": "first erste ersten erster erstes primero primera primer ilk birinci",
        "second": "second zweite zweiten zweiter segundo segunda ikinci",
        "third": "third dritte dritten dritter tercero tercera üçüncü",
        "last": "last letzte letzten letzter último última",
        "free": "free kostenlos kostenlose gratis gratuito ücretsiz",
        "basic": "basic basis grundlegend grundlegende básico básica temel",
        "standard": "standard estándar standart",
        "plus": "plus",
        "pro": "pro professional professionell profesional",
        "premium": "premium",
        "advanced": "advanced erweitert erweiterte erweiterten avanzado avanzada gelişmiş",
        "enterprise": "enterprise business unternehmen empresa kurumsal",
        "minimum": "min minimum minimal mínimo minimo",
        "maximum": "max maximum maximal máximo maksimum",
    }
)


def not_opposed(a: str, b: str) -> Verdict[str]:
    """Refused when both names carry scale, ordinal or tier words and those words mean different things."""
    if marked_apart(a, b, _MARKS):
        return Verdict(False, f"'{a}' / '{b}' are marked with different ends of a scale, ordinals or tiers")
    return Verdict(True)
