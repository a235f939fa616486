"""A lowercase thing after "with" that no chunk holds, nor a word a typo away, is said before the answer
(``unnamed._unheld``, ``unheld.near_held``; stop 54, h54e).

Seen in the browser (stop 53, row 6 of bench/browser_turns_sixth.tsv): "¿puedo dictarle notas a obsidian con
alexa?" quoted the Sync FAQ's Apple Isolation mode: "alexa" is lowercase and follows a bare "con", so no naming read
it. The real e5 model embeds here; the index is a real small one; no model is asked.
"""

from __future__ import annotations

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.answer.packet import build_packet
from sentinel.answer.unheld import AUTO, allowed, edits, near_held
from sentinel.answer.unnamed import OBJECT, WITH_OBJECT, unmentioned, unnamed
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.tools.context import ToolContext
from tests.support.scripted import ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext, embedded

IOS = {
    "es/Obsidian para iOS.md": "# Obsidian para iOS\n\nEn el iPhone puedes escribir tus notas con el teclado o "
    "dictarlas con el micrófono, y la sincronización de Obsidian Sync las lleva a tus otros dispositivos. Para "
    "alejar la vista, pellizca la pantalla.\n",
    "de/Synchronisierung.md": "# Synchronisierung\n\nObsidian Sync hält deine Notizen auf allen Geräten gleich; "
    "du richtest die Synchronisierung in den Einstellungen mit deinem Konto ein.\n",
    "en/Sync.md": "# Sync\n\nObsidian Sync keeps your notes the same on every device. Set up synchronization in "
    "the settings, and sign in with your account.\n",
}
ALEXA = "¿puedo dictarle notas a obsidian con alexa?"


def _unasked(ctx: ToolContext, question: str) -> Answer:
    return answer_turn(ctx, ScriptedProvider([unreachable]), Turn([{"role": "user", "content": question}]))


def test_a_lowercase_thing_after_with_that_no_chunk_holds_is_said_before_the_answer(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    """Without ``unmentioned``'s ``WITH_OBJECT``: nothing names "alexa" (lowercase, a bare "con", no device's
    place), and the iOS page is quoted as if it answered."""
    ctx = embedded(make_ctx(IOS), e5)
    packet = build_packet(ctx, ALEXA, passages=4, budget_tokens=1200)
    assert not packet.unnamed and packet.unmentioned == "alexa"
    assert _unasked(ctx, ALEXA).answer.startswith("La bóveda no menciona «alexa».")


def test_a_thing_after_with_is_found_in_each_language_and_only_after_with(make_ctx: MakeContext) -> None:
    db = make_ctx(IOS).reader()
    for question, thing in (
        (ALEXA, "alexa"),
        ("kann ich obsidian mit meiner alexa steuern?", "alexa"),
        ("does obsidian work with spotify so i can play music while i write", "spotify"),
        ("¿se puede usar obsidian con fitbit pa apuntar lo que corro?", "fitbit"),
    ):
        assert unmentioned(db, question) == thing, question
    assert not unmentioned(db, "necesito el dominio para el cortafuegos")  # another preposition: the question's word


def test_a_typo_of_a_word_the_vault_holds_is_no_thing(make_ctx: MakeContext) -> None:
    """Without ``near_held``: "obsidain", "sincronisacion", "Kontto" are in no chunk and would be named."""
    db = make_ctx(IOS).reader()
    for question in (
        "can i set up sync with obsidain?",
        "¿cómo la configuro con la sincronisacion?",  # Spanish stem "sincronis", the page's "sincroniz"
        "wie richte ich das mit meinem Kontto ein?",
        "does it work with synchronisation?",  # 1 edit from the page's "synchronization"
    ):
        assert not unnamed(db, question, unheld=WITH_OBJECT), question


def test_a_short_stem_is_held_to_its_own_letters(make_ctx: MakeContext) -> None:
    """Round one (1 edit for every fold) missed "con alexa": its Spanish stem "alex" is 1 edit from the page's
    "alej" (alejar). Under 5 letters a fold must be held exactly (``AUTO``)."""
    db = make_ctx(IOS).reader()
    assert near_held(db, "alexa", 1) and not near_held(db, "alexa", AUTO)
    assert unnamed(db, ALEXA, unheld=WITH_OBJECT, near=1) == ""
    assert unnamed(db, ALEXA, unheld=WITH_OBJECT) == "alexa"


def test_edits_count_a_swap_as_one() -> None:
    assert edits("obsidain", "obsidian", 2) == 1
    assert edits("alex", "alej", 1) == 1
    assert edits("spotify", "notify", 1) == 2  # over the limit: limit + 1
    assert edits("alexa", "alexa", 0) == 0
    assert [allowed(word, AUTO) for word in ("alex", "alexa", "spotify", "sincronis")] == [0, 1, 1, 2]


# Stop 55 (h55d): row 6 of bench/browser_turns_seventh.tsv quoted the Android shortcuts; "whatsapp" follows "de".
WHATSAPP = "oye, ¿puedo mandar una nota de obsidian directo a un grupo de whatsapp?"
PLUGINS = {
    **IOS,
    "en/Community plugins.md": "# Community plugins\n\nObsidian can check for updates of your community plugins "
    "every day, and you install them from the plugin browser.\n",
}


def test_a_thing_after_any_preposition_that_is_no_word_of_the_language_is_said_before_the_answer(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    """Without ``unmentioned``'s ``OBJECT`` reading (``PREFACE``'s ``uncommon``): nothing names "whatsapp"
    (lowercase, after "de", not "with"), and the pages are quoted as if they answered."""
    ctx = embedded(make_ctx(PLUGINS), e5)
    packet = build_packet(ctx, WHATSAPP, passages=4, budget_tokens=1200)
    assert not packet.unnamed and packet.unmentioned == "whatsapp"
    assert _unasked(ctx, WHATSAPP).answer.startswith("La bóveda no menciona «whatsapp».")
    db = ctx.reader()
    assert unmentioned(db, "how do i share my daily note to whatsapp from my phone?") == "whatsapp"


def test_a_word_of_the_language_after_a_preposition_is_no_thing(make_ctx: MakeContext) -> None:
    """Each is in no chunk of the index and after a preposition; without ``unheld.spared`` each would be named: a
    dictionary word ("grupo", "amigos", "phone"), a form of one ("recipes", "traerlas"), two known words
    ("Kachel|ansicht", "mac|book"), a Turkish sentence ("en" is "most" there), a short typo ("chek")."""
    db = make_ctx(PLUGINS).reader()
    for question in (
        "¿cómo mando una nota a un grupo de amigos?",
        "how do i make a template for my recipes?",
        "¿cómo hago la copia de todas mis notas para traerlas?",
        "Wie zeige ich die Bilder in der Kachelansicht an?",
        "on my macbook how do i jump to the very bottom of a note",
        "sik kullandigim bir komutu listenin en ustune nasil sabitlerim",
        "how often does obsidian ping github to chek for broken plugins?",
    ):
        assert not unmentioned(db, question), question
        assert unnamed(db, question, uncommon=OBJECT, spared=None, uncommon_near=AUTO), question
