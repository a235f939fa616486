"""A passage cut into sentences a person reads: never inside bold, code or a fence (vault/sentences.py)."""

from __future__ import annotations

from sentinel.vault.sentences import sentence_spans

FAQ = (
    "## Häufig gestellte Fragen\n\n"
    "**Was passiert, wenn ich eine Zahlung verpasse? Verliere ich meine Daten?**\n"
    "Nein, deine Daten werden 30 Tage lang aufbewahrt. Deine lokalen Daten bleiben unberührt.\n"
)
FENCE = (
    'To start, copy the following properties into it:\n\n```yaml\n---\ncoordinates:\n  - "48.85"\n---\n```\n\n'
    "Here's what the code above means. Run `a. b` now.\n"
)


def _texts(markdown: str) -> list[str]:
    return [s.text for s in sentence_spans(markdown)]


def test_a_bold_question_with_two_question_marks_is_one_sentence() -> None:
    assert _texts(FAQ) == [
        "## Häufig gestellte Fragen",
        "**Was passiert, wenn ich eine Zahlung verpasse? Verliere ich meine Daten?**",
        "Nein, deine Daten werden 30 Tage lang aufbewahrt.",
        "Deine lokalen Daten bleiben unberührt.",
    ]


def test_a_code_fence_is_a_unit_of_its_own_and_says_so() -> None:
    spans = sentence_spans(FENCE)
    assert [s.text for s in spans] == [
        "To start, copy the following properties into it:",
        '```yaml\n---\ncoordinates:\n  - "48.85"\n---\n```',
        "Here's what the code above means.",
        "Run `a. b` now.",
    ]
    assert [s.block for s in spans] == [False, True, False, False]


def test_each_sentence_is_a_verbatim_slice_after_non_ascii_text() -> None:
    text = "Ünïcödé **fett. Noch** mehr. Zwei.\n\n1. Erster Schritt. Danach.\n2. Zweiter."
    spans = sentence_spans(text)
    assert all(text[s.start : s.end] == s.text for s in spans)
    assert [s.text for s in spans] == [
        "Ünïcödé **fett. Noch** mehr.",
        "Zwei.",
        "1. Erster Schritt.",  # the list's "1." is a marker, not a sentence of its own
        "Danach.",
        "2. Zweiter.",
    ]


def test_a_callouts_type_marker_is_not_quoted() -> None:
    """The browser check after stop 45 showed "…YYYY-MM-DD. [!tip] Si prefieres …": the marker is an icon in
    Obsidian, never text a person reads."""
    text = (
        "De forma predeterminada, Obsidian crea una nota.\n\n"
        "> [!tip] Si prefieres tener tus notas en una carpeta, configura la ubicación.\n\n"
        "> [!info]+\n> Varsayılan olarak 7 gün saklanır.\n\n"
        "> [!example]- Subcarpetas automáticas\n> Puedes organizar tus notas."
    )
    spans = sentence_spans(text)
    assert all(text[s.start : s.end] == s.text for s in spans)
    texts = [s.text for s in spans]
    assert texts[:2] == [
        "De forma predeterminada, Obsidian crea una nota.",
        "Si prefieres tener tus notas en una carpeta, configura la ubicación.",
    ]
    assert "Subcarpetas automáticas" in texts  # a title stays, its marker does not
    assert len(texts) == 5 and not any("[!" in t for t in texts)  # a marker alone is no unit


def test_a_footnotes_definition_is_a_unit_never_quoted() -> None:
    """The browser check after stop 45 showed a quote "¹: El ID de la bóveda es …" (the eval vault's Obsidian URI
    page, a footnote's definition, drawn by the chat as a footnote marker)."""
    text = (
        "Abre la nota diaria con `obsidian://daily`.[^1] Funciona en cada bóveda.\n\n"
        "[^1]: El ID de la bóveda es el código aleatorio de 16 caracteres. Este ID es único por carpeta.\n\n"
        "Después, otra frase.\n"
    )
    spans = sentence_spans(text)
    assert [(s.text, s.block) for s in spans] == [
        ("Abre la nota diaria con `obsidian://daily`.[^1] Funciona en cada bóveda.", False),
        ("[^1]:", True),
        ("El ID de la bóveda es el código aleatorio de 16 caracteres. Este ID es único por carpeta.", True),
        ("Después, otra frase.", False),
    ]


def test_no_sentence_ends_inside_a_parenthesis() -> None:
    # de/Obsidian Sync/Sync-Einstellungen …: a quote opened "dein Handy) empfangen …" in the browser (stop 52)
    text = "Sekundäre Geräte (z. B. dein Handy) empfangen Aktualisierungen vom primären Gerät. Das ist alles.\n"
    assert _texts(text) == [
        "Sekundäre Geräte (z. B. dein Handy) empfangen Aktualisierungen vom primären Gerät.",
        "Das ist alles.",
    ]


def test_a_parenthesis_that_ends_a_sentence_and_one_left_open_still_cut() -> None:
    assert _texts("(You need this. And that.) Next one.\n\nA smiley :( here. A list's a) item. Last.\n") == [
        "(You need this. And that.)",
        "Next one.",
        "A smiley :( here.",
        "A list's a) item.",
        "Last.",
    ]


def test_a_parenthesis_is_read_in_its_block_only() -> None:
    assert _texts("- First (open. Cut here.\n- Second) item. End.\n") == [
        "- First (open.",
        "Cut here.",
        "- Second) item.",
        "End.",
    ]
