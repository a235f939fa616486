"""The name gates, each on examples of its own (en/de/es/tr): what it refuses, and what it must let through.

The let-through side matters as much: a gate that refused every pair would make zero wrong merges by making
no merges at all, so each gate is shown a translation or spelling of one name it must leave to the model.
"""

from __future__ import annotations

import pytest

from sentinel.gates import (
    consistent,
    contexts,
    contrary,
    coordinated,
    numbers,
    one_language,
    opposites,
    qualifiers,
    shape,
    shared_source,
    sibling,
    two_pages,
)
from sentinel.vault.name_words import variant_key


@pytest.mark.parametrize(
    ("a", "b", "one_name"),
    [
        ("Core plugins", "core-plugin", True),
        ("Gamma-ray bursts", "gamma ray burst", True),
        ("Aliases", "alias", True),
        ("Entries", "entry", True),
        ("Einstellungen", "Einstellung", True),
        ("Funciones", "Función", True),
        ("Filtreler", "filtre", True),
        ("Fonksiyonlar", "Fonksiyon", True),
        ("Handler", "Hand", False),  # ``ler`` after a back vowel is not a Turkish plural
        ("Class", "Cla", False),
        ("Dark mode", "Light mode", False),
    ],
)
def test_the_fold_joins_spellings_of_one_name_only(a: str, b: str, one_name: bool) -> None:
    assert (variant_key(a) == variant_key(b)) is one_name


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Dark mode", "Light mode"),
        ("Plus plan", "Standard plan"),
        ("Left panel", "Right panel"),
        ("Core themes", "Community themes"),
        ("Undo history", "File history"),
        ("Quick search", "Global search"),
        ("Share notes with your team", "Team Sync"),
        ("Importar desde Bear", "Importar desde Notion"),
        ("Vista de grafo", "Vista de etiquetas"),
        ("Obsidian Sync kurulumu", "Obsidian Publish kurulumu"),
    ],
)
def test_siblings_that_replace_a_word_are_two_things(a: str, b: str) -> None:
    assert not sibling.no_replaced_word(a, b).passed and not sibling.no_replaced_word(b, a).passed


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Core plugin", "core-plugins"),  # one name, folded
        ("Colour scheme", "Color scheme"),  # a spelling, not a replaced word
        ("Settings", "Einstellungen"),  # nothing shared: the model's
        ("Links", "Internal links"),  # added words: the shape gate's
    ],
)
def test_spellings_translations_and_additions_are_not_siblings(a: str, b: str) -> None:
    assert sibling.no_replaced_word(a, b).passed


@pytest.mark.parametrize(
    ("a", "b", "two_things"),
    [
        ("Dark mode", "Modo claro", True),  # es light
        ("Dunkler Modus", "Light mode", True),
        ("Left sidebar", "Rechte Seitenleiste", True),
        ("First steps", "İkinci adımlar", True),  # tr second
        ("Free plan", "Pro plan", True),
        ("Incoming links", "Ausgehende Links", True),
        ("Advanced formatting syntax", "Erweiterte Formatierungssyntax", False),  # both "advanced"
        ("Create your first note", "Erste Notiz erstellen", False),
        ("Koyu tema", "Dark theme", False),
        ("Themes", "Dark themes", False),  # a mark on one side only: the shape gate's
        ("Links", "Internal links", False),
    ],
)
def test_opposite_ordinal_and_tier_marks(a: str, b: str, two_things: bool) -> None:
    assert opposites.not_opposed(a, b).passed is not two_things


@pytest.mark.parametrize(
    ("a", "b", "two_things"),
    [
        ("Android", "Android TV", True),
        ("Web app", "Desktop app", True),
        ("Obsidian for iOS", "Obsidian para Android", True),
        ("Sync for teams", "Publish para equipos", True),
        ("Handy-App", "Desktop-App", True),  # de mobile
        ("Obsidian Sync kurulumu", "Set up Obsidian Sync", False),  # tr/en, both "sync"
        ("Mobile app", "App móvil", False),
        ("Obsidian", "Obsidian for Android", False),  # one side only: the shape gate's
    ],
)
def test_platform_and_product_qualifiers(a: str, b: str, two_things: bool) -> None:
    assert qualifiers.same_qualifiers(a, b).passed is not two_things


@pytest.mark.parametrize(
    ("a", "b", "two_things"),
    [
        ("Version 1.4", "Version 1.5", True),
        ("iOS 16", "iOS 17", True),
        ("Chapter two", "Kapitel 3", True),
        ("2-factor authentication", "Zwei-Faktor-Authentifizierung", False),
        ("Two-factor authentication", "Dos factores", False),
        ("Windows", "Windows 11", False),  # one side only
        ("Eine Notiz", "Una nota", False),  # articles are not numbers
    ],
)
def test_numbers(a: str, b: str, two_things: bool) -> None:
    assert numbers.same_numbers(a, b).passed is not two_things


@pytest.mark.parametrize(
    ("a", "b", "defers"),
    [
        ("gamma-ray burst", "short gamma-ray burst", True),
        ("Ariel", "Ariel Space Telescope", True),
        ("Gamma-ray bursts", "short gamma ray burst", True),  # folded words
        ("Sync", "Headless Sync", True),
        ("Core plugin", "Core plugins", False),
        ("burst gamma-ray", "short gamma-ray burst", False),  # not in order
    ],
)
def test_shape_defers_additions(a: str, b: str, defers: bool) -> None:
    assert shape.no_added_words(a, b).passed is not defers


def test_a_sentence_naming_both_apart_makes_them_two_things() -> None:
    assert not contexts.never_named_apart(
        "Dark mode", "Light mode", ["Switch between dark mode and light mode."]
    ).passed
    assert not contexts.never_named_apart("Links", "Internal links", ["Links differ from internal links."]).passed


def test_one_inside_the_other_or_two_spellings_in_a_sentence_are_not_apart() -> None:
    assert contexts.never_named_apart("Links", "Internal links", ["Use internal links to connect notes."]).passed
    assert contexts.never_named_apart(
        "core plugin", "Core plugins", ["Each core plugin is one of the core plugins."]
    ).passed
    assert contexts.never_named_apart("Dark mode", "Light mode", ["Dark mode is easy on the eyes."]).passed


@pytest.mark.parametrize(("answer", "stands"), [("no", True), ("yes", False), ("unclear", False), (None, False)])
def test_only_a_denied_contrary_lets_a_same_stand(answer: contrary.YesNo | None, stands: bool) -> None:
    assert contrary.denies_difference(answer).passed is stands


def test_contexts_agree_only_on_yes_with_sentences_on_both_sides() -> None:
    assert consistent.contexts_agree(["A is x."], ["B is x."], "yes").passed
    assert not consistent.contexts_agree(["A is x."], ["B is x."], "no").passed
    assert not consistent.contexts_agree(["A is x."], ["B is x."], "unclear").passed
    assert not consistent.contexts_agree([], ["B is x."], "yes").passed
    assert not consistent.contexts_agree(["A is x."], [], "yes").passed


def test_a_name_with_a_page_of_its_own_is_never_an_alias_of_another() -> None:
    assert not two_pages.one_page("wiki/Core plugin.md", "notes/Core plugins.md").passed
    assert two_pages.one_page(None, "notes/Core plugins.md").passed
    assert two_pages.one_page("notes/Core plugins.md", "notes/Core plugins.md").passed


WORKSPACES = "Commands for Workspace and the Workspaces plugin."


@pytest.mark.parametrize(
    ("a", "b", "sentence"),
    [
        ("Workspaces", "Workspace", WORKSPACES),
        ("Layout", "Layouts", "Pick a layout and the layouts plugin saves it."),
        ("Einstellung", "Einstellungen", "Die Einstellung und die Einstellungen-Seite."),  # hyphen ends a word
        ("Plantilla", "Plantillas", "Una plantilla y las plantillas del complemento."),
        ("Filtre", "Filtreler", "Filtre ve Filtreler eklentisi."),
    ],
)
def test_spellings_joined_by_and_are_two_things(a: str, b: str, sentence: str) -> None:
    verdict = coordinated.spellings_kept_apart(a, b, ["Nothing here.", sentence])
    assert not verdict.passed and sentence[:20] in verdict.reason


@pytest.mark.parametrize(
    ("a", "b", "sentence"),
    [
        ("core plugin", "Core plugins", "Each core plugin is one of the core plugins."),
        ("note", "notes", "Select a note or notes to move."),  # "or" offers one thing in two numbers
        ("Tag", "Tags", "Tags help you find notes."),
        ("Dark mode", "Light mode", "Dark mode and light mode."),  # not spellings of one name: contexts' case
        ("Tags", "tags", "Tags and tags."),  # the same letters: nothing to tell apart
    ],
)
def test_spellings_not_joined_by_and_are_left_to_the_model(a: str, b: str, sentence: str) -> None:
    assert coordinated.spellings_kept_apart(a, b, [sentence]).passed


EN = ["Tags are keywords that help you find notes.", "You can add tags to the frontmatter of a note."]
DE = ["Lesezeichen sind Verweise, die du in der Seitenleiste speicherst.", "Du kannst die Lesezeichen ordnen."]
DE_TAGS = ["Du kannst Tags in der Seitenleiste sehen und die Tags ordnen."]


def test_names_that_share_no_word_are_asked_only_when_each_keeps_to_its_own_language() -> None:
    assert one_language.shown_as_translation("Lesezeichen", "Tags", DE, EN).passed
    assert one_language.shown_as_translation("Tags", "Tag", EN, EN).passed  # a word shared: not this gate's


@pytest.mark.parametrize(
    ("b_sentences", "why"),
    [
        (EN, "both English"),
        ([*EN, *DE_TAGS], "Tags is used in German pages too: a loanword, not one language"),
        (["| `file.tags` | list |"], "no sentence shows a language"),
        ([], "no sentence at all"),
    ],
)
def test_names_that_share_no_word_and_are_not_shown_as_a_translation_are_not_asked(
    b_sentences: list[str], why: str
) -> None:
    verdict = one_language.shown_as_translation("Bookmarks", "Tags", EN, b_sentences)
    assert not verdict.passed and "add an alias by hand" in verdict.reason, why


QUICK_DE = ["Die Schnellauswahl lucide-file-search.svg öffnest du mit `Cmd+O`."]
QUICK_EN = ["Open the Quick switcher lucide-file-search.svg with `Ctrl+O` or `Cmd+O`."]


@pytest.mark.parametrize(
    ("a_sentences", "b_sentences"),
    [
        (QUICK_DE, QUICK_EN),  # the icon and the key
        (["Mit `--show-outline` zeigt die Gliederung sich."], ["The `--show-outline` flag shows the Outline."]),
        (["Tuval verileri IMG.PNG olarak saklar."], ["The Canvas is stored as img.png."]),  # case aside
    ],
)
def test_a_translation_whose_sentences_share_an_embed_or_code_is_left_to_the_model(
    a_sentences: list[str], b_sentences: list[str]
) -> None:
    assert shared_source.share_a_source("Schnellauswahl", "Quick switcher", a_sentences, b_sentences).passed


@pytest.mark.parametrize(
    ("a_sentences", "b_sentences"),
    [
        (["Die Befehlspalette zeigt alle Befehle."], ["The Quick switcher opens a note by its name."]),
        (["Der Typ ist `list`."], ["The type is `list`."]),  # a plain word in code is said everywhere
        (["Trenne mit `---`."], ["Separate with `---`."]),  # punctuation too
        ([], QUICK_EN),
    ],
)
def test_names_with_no_word_in_common_and_nothing_untranslated_in_common_are_not_asked(
    a_sentences: list[str], b_sentences: list[str]
) -> None:
    verdict = shared_source.share_a_source("Befehlspalette", "Quick switcher", a_sentences, b_sentences)
    assert not verdict.passed and "nothing but the model" in verdict.reason


def test_names_that_share_a_word_are_not_the_shared_source_gate_s() -> None:
    assert shared_source.share_a_source("Core plugin", "Core plugins", [], []).passed
