"""A question naming a thing the vault never names is told so (``answer.unnamed``), and the model reads only the
passages ``packet.lets_in`` admits (``packet.admitted``).

Seen in the browser (stop 49): device questions ("Garmin", "apple watch") meet the Sync page at a cosine e5 reads
as on topic, and the model wrote true sentences about the iOS app that a person reads as a yes (row 10); "¿Qué
tiempo hará mañana en Madrid?" let in one passage and the model wrote from another below the floor (row 1). The real e5
model embeds here; the index is a real small one; the model is scripted where what it reads must be shown.
"""

from __future__ import annotations

import json
import re

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.answer.packet import MIN_COSINE, build_packet, lets_in, relevant
from sentinel.answer.unnamed import ACCOMPANIED, OWNED_PLACE, PLACED, POSSESSED, kin_of_a_name, unnamed
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.tools.context import ToolContext
from tests.support.scripted import ChatRequest, ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext, embedded

DEVICES = {
    "en/Sync on your devices.md": "# Sync on your devices\n\nObsidian Sync keeps your notes the same on every "
    "device you use, and it can work in the background: your Mac, your Windows computer, and your Apple devices "
    "such as the iPhone and the iPad. Install Obsidian from the App Store on your Apple phone.\n",
}
GARMIN = "Does Obsidian Sync work on a Garmin?"  # a name written with a capital that no chunk holds
IPHONE = "Does Obsidian Sync work on my iPhone?"  # answerable: the page names the iPhone

TIME = {
    "es/Funciones.md": "# Funciones\n\nLa función `today()` devuelve la fecha de hoy. La porción de tiempo de una "
    "fecha se puede quitar con `date()`, y dos fechas se comparan con los operadores habituales.\n",
    "es/Historial de versiones.md": "# Historial de versiones\n\nObsidian Sync guarda el historial de versiones de "
    "tus notas durante un tiempo que depende de tu plan: un mes en el plan Standard y doce meses en el plan Plus.\n",
}
HISTORY = "¿Cuánto tiempo guarda Obsidian Sync el historial de versiones?"  # shares "tiempo" with both pages
TODAY = "La función `today()` devuelve la fecha de hoy."
KEPT = "Obsidian Sync guarda el historial de versiones un mes en el plan Standard y doce meses en el plan Plus."


def _unasked(ctx: ToolContext, question: str) -> Answer:
    """The answer to ``question`` when the model must not be asked (a scripted model that fails if it is)."""
    return answer_turn(ctx, ScriptedProvider([unreachable]), Turn([{"role": "user", "content": question}]))


def test_a_device_the_vault_never_names_is_told_so_though_e5_reads_the_question_on_topic(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    """Without ``unnamed``: the Sync page is let in (a shared word, a cosine over the floor) and quoted."""
    ctx = embedded(make_ctx(DEVICES), e5)
    packet = build_packet(ctx, GARMIN, passages=4, budget_tokens=1200)
    assert any(lets_in(p, GARMIN) for p in packet.passages)  # e5 and the words read it as on topic
    assert packet.unnamed == "Garmin"
    assert not relevant(packet)
    provider = ScriptedProvider([unreachable])
    answer = answer_turn(ctx, provider, Turn([{"role": "user", "content": GARMIN}]))
    assert answer.answer.startswith("The vault does not mention “Garmin”.")
    assert not answer.citations
    assert not provider.requests  # the model is not asked


def test_the_vault_not_mentioning_a_name_is_said_in_the_chats_language(make_ctx: MakeContext, e5: OnnxEmbedder) -> None:
    ctx = embedded(make_ctx(DEVICES), e5)
    answer = _unasked(ctx, "¿Funciona Obsidian en un Garmin?")
    assert answer.answer.startswith("La bóveda no menciona «Garmin».")


def test_a_device_the_vault_names_is_still_answered(make_ctx: MakeContext, e5: OnnxEmbedder) -> None:
    ctx = embedded(make_ctx(DEVICES), e5)
    packet = build_packet(ctx, IPHONE, passages=4, budget_tokens=1200)
    assert not packet.unnamed and relevant(packet)
    answer = _unasked(ctx, IPHONE)
    assert "iPhone" in answer.answer
    assert answer.citations[0].path == "en/Sync on your devices.md"


SNAPSHOTS = {
    "de/Dateiwiederherstellung.md": "# Dateiwiederherstellung\n\nObsidian speichert alle paar Minuten einen "
    "Schnappschuss deiner Notizen und hebt ihn sieben Tage lang auf, bevor er gelöscht wird.\n",
}
BACKUPS = "Wie lange hebt Obsidian die Sicherungskopien meiner Notizen auf?"  # no chunk says "Sicherungskopie"


def test_a_german_noun_no_page_holds_is_no_name(make_ctx: MakeContext, e5: OnnxEmbedder) -> None:
    """German writes every noun with a capital: "Sicherungskopien" is the question's word for the page's
    "Schnappschuss", not a thing the vault never names (bench/unanswered.py: 41 German questions lost)."""
    ctx = embedded(make_ctx(SNAPSHOTS), e5)
    packet = build_packet(ctx, BACKUPS, passages=4, budget_tokens=1200)
    assert not packet.unnamed and relevant(packet)
    answer = _unasked(ctx, BACKUPS)
    assert "sieben Tage" in answer.answer


MACBOOK = "Does Obsidian Sync work on my MacBook?"  # no page writes "MacBook"; the Sync page writes "your Mac"


def test_a_name_whose_head_the_vault_names_is_said_before_the_answer_not_in_its_place(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    """Stop 53 (h53c): "MacBook", capitalised and on no page, silenced a question the Mac's page answers."""
    ctx = embedded(make_ctx(DEVICES), e5)
    packet = build_packet(ctx, MACBOOK, passages=4, budget_tokens=1200)
    assert not packet.unnamed and packet.unmentioned == "MacBook" and relevant(packet)
    answer = _unasked(ctx, MACBOOK)
    assert answer.answer.startswith("The vault does not mention “MacBook”. "), answer.answer
    assert [c.path for c in answer.citations] == ["en/Sync on your devices.md"]


def test_only_a_camel_case_name_whose_head_the_vault_writes_as_a_name_is_kin(make_ctx: MakeContext) -> None:
    """A head the page writes only as a verb ("play") names nothing; "Garmin", "iPhone", "Macintosh" have no
    camel-case head."""
    db = make_ctx({**DEVICES, "en/Audio.md": "# Audio\n\nYou can play audio files in a note.\n"}).reader()
    assert kin_of_a_name(db, "MacBook", 0.8)
    assert not kin_of_a_name(db, "PlayStation", 0.8) and kin_of_a_name(db, "PlayStation", 0)
    assert not any(kin_of_a_name(db, word, 0) for word in ("Garmin", "iPhone", "Macintosh"))
    assert unnamed(db, "Does Sync work on a PlayStation?", kin=0.8) == "PlayStation"


def _writes_from_what_it_reads(request: ChatRequest) -> str:
    """A model that writes from the Funciones passage when it is shown one, citing it by its number."""
    shown = "\n".join(str(m["content"]) for m in request.messages)
    if found := re.search(r"\[(\d+)\][^\[]*today\(\)", shown):
        return json.dumps({"sentences": [{"text": TODAY, "cite": int(found.group(1))}]})
    return json.dumps({"sentences": [{"text": KEPT, "cite": 1}]})


def test_the_model_reads_only_the_passages_let_in(make_ctx: MakeContext, e5: OnnxEmbedder) -> None:
    """Without ``packet.admitted``: the Funciones passage (a shared "tiempo", below the floor) is shown to the
    model, which writes its sentence, and the support gate keeps it (the page's own words)."""
    ctx = embedded(make_ctx(TIME), e5)
    packet = build_packet(ctx, HISTORY, passages=4, budget_tokens=1200)
    below = next(p for p in packet.passages if p.path == "es/Funciones.md")
    assert below.cosine is not None and below.cosine < MIN_COSINE and not lets_in(below, HISTORY)
    provider = ScriptedProvider([_writes_from_what_it_reads])
    answer = answer_turn(ctx, provider, Turn([{"role": "user", "content": HISTORY}]))
    shown = "\n".join(str(m["content"]) for m in provider.requests[0].messages)
    assert "today()" not in shown
    assert "doce meses" in answer.answer and "today" not in answer.answer
    assert [c.path for c in answer.citations] == ["es/Historial de versiones.md"]


# Browser stop 49, row 10, and the German shape of it: the vault holds "Apple" and "watch" (never in one chunk),
# and "Uhr" (never with "Garmin"); the capitalised word finds neither (lowercase; German nouns).
WATCHES = {
    **DEVICES,
    "en/Watch a folder.md": "# Watch a folder\n\nObsidian can watch a folder for changes made by other apps and "
    "show them in your vault at once.\n",
    "de/Sync auf deinen Geräten.md": "# Sync auf deinen Geräten\n\nObsidian Sync hält deine Notizen auf jedem "
    "Gerät gleich: auf deinem Mac, deinem Windows-Rechner, deinem iPhone und deinem Android-Handy. Die App läuft "
    "auch im Hintergrund, rund um die Uhr.\n",
}
APPLE_WATCH = "can i use obsidian on my apple watch?"
GARMIN_WATCH = "Läuft Obsidian eigentlich auch auf meiner Garmin-Uhr?"


def test_a_lowercase_device_the_vault_never_names_is_said_before_the_nearest_passage(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    """Without ``unmentioned``: the Sync page is quoted as if it answered (e5 reads the question on topic)."""
    ctx = embedded(make_ctx(WATCHES), e5)
    answer = _unasked(ctx, APPLE_WATCH)
    assert answer.answer.startswith("The vault does not mention “apple watch”. ")
    assert answer.citations  # the nearest passage still follows, under the line that says it is not a yes
    packet = build_packet(ctx, APPLE_WATCH, passages=4, budget_tokens=1200)
    assert relevant(packet) and not packet.unnamed  # not silenced: answerable questions use such words too
    assert packet.unmentioned == "apple watch"


def test_a_german_device_the_vault_never_names_is_said_in_german(make_ctx: MakeContext, e5: OnnxEmbedder) -> None:
    ctx = embedded(make_ctx(WATCHES), e5)
    answer = _unasked(ctx, GARMIN_WATCH)
    assert answer.answer.startswith("Der Vault erwähnt „Garmin-Uhr“ nicht. ")


def test_a_device_the_vault_names_in_one_chunk_opens_with_nothing(make_ctx: MakeContext, e5: OnnxEmbedder) -> None:
    ctx = embedded(make_ctx(WATCHES), e5)
    for question in ("can i use obsidian on my iphone?", "Läuft Obsidian auch auf meinem Android-Handy?"):
        packet = build_packet(ctx, question, passages=4, budget_tokens=1200)
        assert not packet.unnamed and not packet.unmentioned and relevant(packet)
        answer = _unasked(ctx, question)
        assert not answer.answer.startswith(("The vault does not", "Der Vault erwähnt"))


# Stop 52: the thing named outside a device's place in German, and Turkish's endings (browser stop 51, fourth file,
# row 6: "Steuererklärung" is in no chunk; "akıllı saatimde", "Kindle'ıma": the stem is what no chunk holds).
LICENCES = {
    "de/Kommerzielle Lizenz.md": "# Kommerzielle Lizenz\n\nMit der kommerziellen Lizenz darfst du Obsidian in "
    "deiner Firma nutzen. Die Lizenz gilt ein Jahr, und du kannst sie jederzeit verlängern.\n",
    "tr/Cihazlarda Sync.md": "# Cihazlarda Sync\n\nObsidian Sync notlarınızı telefonunuzda, tabletinizde ve "
    "bilgisayarınızda aynı tutar. Eşitleme her saat başı değil, her değişiklikte çalışır. Yayınlanan siteniz "
    "için Obsidian Publish kullanın.\n",
}
TAXES = "kann ich mit obsidian auch meine Steuererklärung machen?"


def test_a_german_possessions_name_no_chunk_holds_is_found(make_ctx: MakeContext) -> None:
    db = make_ctx(LICENCES).reader()
    assert unnamed(db, TAXES, position=POSSESSED) == "Steuererklärung"
    assert unnamed(db, TAXES, position=PLACED) == ""  # not in a device's place: round four's rule misses it
    assert unnamed(db, "Wie verlängere ich meine Lizenz?", position=POSSESSED) == ""


def test_a_name_after_a_bare_with_is_found_where_its_clause_goes_on(make_ctx: MakeContext) -> None:
    """Stop 53's measured and unshipped naming (``unnamed.ACCOMPANIED``, bench/unanswered.py ranks it): browser row 8
    of the fifth file, "con spotify pa poner musica", has no article before the name and its clause goes on."""
    db = make_ctx(LICENCES).reader()
    spotify = "¿obsidian se puede conectar con spotify pa poner musica mientras escribo?"
    assert unnamed(db, spotify, position=POSSESSED) == ""  # the shipped preface's position misses it
    assert unnamed(db, spotify, accompanied=ACCOMPANIED) == "spotify"
    assert unnamed(db, "¿Puedo conectar mi nota con Obsidian Sync?", accompanied=ACCOMPANIED) == ""  # a chunk has it


def test_a_turkish_name_before_its_suffix_or_in_a_devices_place_is_found(make_ctx: MakeContext) -> None:
    db = make_ctx(LICENCES).reader()
    saat = "Obsidian'ı akıllı saatimde kullanabilir miyim?"
    assert unnamed(db, saat, turkish=True, places=OWNED_PLACE) == "akıllı saatimde"  # as written; "saat" looked for
    assert unnamed(db, saat, turkish=True) == ""  # the name alone: no apostrophe here
    assert unnamed(db, "notlarımı kindle'ıma atabilir miyim?", turkish=True) == "kindle"
    assert unnamed(db, "Obsidian'ı akıllı saatimde kullanabilir miyim?") == ""  # lowercase: no capital to read
    for held in (
        "Notlarımı telefonumda nasıl görürüm?",  # "telefon" begins a word of the page
        "Yayın sitemde bir sayfayı nasıl gizlerim?",  # "yayın" begins "Yayınlanan"; stemmed they differ
        "Obsidian'ı tabletimde kullanabilir miyim?",
    ):
        assert unnamed(db, held, turkish=True, places=OWNED_PLACE) == "", held
    assert OWNED_PLACE.fullmatch("Eşitleme") is None  # the verbal noun "-me": round five read it as "my" + "to"


def test_a_turkish_participle_in_a_places_form_names_an_act_not_a_thing(make_ctx: MakeContext) -> None:
    """ "siparişiyle ödediğimizde" (when we paid with the order) takes a place's endings on a participle; read as a
    thing it was prefaced as “siparişiyle ödediğ”, a word cut in two, and "istedigim biçimde" (in the form I
    want) joined the participle to the place (the choosing halves, after round six)."""
    db = make_ctx(LICENCES).reader()
    for act in (
        "Lisansı siparişiyle ödediğimizde fatura gelir mi?",
        "Uygulamayı kapattığımda notlar kaybolur mu?",
        "Kasayı açacağımda şifre sorar mı?",
        "Notlarımı istedigim telefonumda nasıl görürüm?",  # a participle before a held place is not its name
    ):
        assert unnamed(db, act, turkish=True, places=OWNED_PLACE) == "", act


@pytest.mark.parametrize(
    ("question", "line"),
    [
        (TAXES, "Der Vault erwähnt „Steuererklärung“ nicht. "),
        ("Obsidian'ı akıllı saatimde kullanabilir miyim?", "Kasada “akıllı saatimde” geçmiyor. "),
        ("notlarımı kindle'ıma atabilir miyim?", "Kasada “kindle” geçmiyor. "),
    ],
)
def test_a_german_possession_or_a_turkish_place_the_vault_never_names_is_said_before_the_answer(
    make_ctx: MakeContext, e5: OnnxEmbedder, question: str, line: str
) -> None:
    """Without stop 52's ``unmentioned``: German "meine Steuererklärung" is no device's place, and Turkish writes a
    device's place as endings, so the answer opened with the nearest page as if it were a yes."""
    ctx = embedded(make_ctx(LICENCES), e5)
    assert _unasked(ctx, question).answer.startswith(line)


def test_a_german_possession_or_a_turkish_place_the_vault_names_opens_with_nothing(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    ctx = embedded(make_ctx(LICENCES), e5)
    for question in ("Wie verlängere ich meine Lizenz?", "Obsidian'ı tabletimde kullanabilir miyim?"):
        assert not build_packet(ctx, question, passages=4, budget_tokens=1200).unmentioned, question
        assert not _unasked(ctx, question).answer.startswith(("Der Vault erwähnt", "Kasada")), question
