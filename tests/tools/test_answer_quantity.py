"""A question asking how many, how long or which date is answered by a sentence that gives a number
(gates/quantity.py), else the vault is quoted where it gives one.

The browser checks of stops 43, 44 and 45 (docs/answers.md) each showed "Dosya Kurtarma anlık görüntüleri kaç
gün saklar?" answered with a sentence of the right passage that gives no number. The page below is the eval
vault's (tr/Eklentiler/Dosya Kurtarma.md), its first paragraphs verbatim.
"""

from __future__ import annotations

import json
import logging

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.gates.quantity import asks_for_a_number, gives_a_number, gives_what_is_asked
from sentinel.providers.base import ProviderUnavailable
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.tool_context import MakeContext

PAGE = (
    "Dosya Kurtarma, notlarınızın düzenli aralıklarla tam anlık görüntülerini otomatik olarak kaydederek "
    "çalışmanızı yanlışlıkla silme, dosya bozulması veya istenmeyen değişikliklerden koruyan bir "
    "[[Yerleşik Eklentiler|çekirdek eklenti]]dir. Dosya Kurtarma eksiksiz bir yedekleme çözümü değildir ve "
    "Obsidian dosyalarınızı ayrıca [[Obsidian dosyalarınızı yedekleyin|yedeklemenizi]] öneririz.\n\n"
    "[[#Depolama ve performans|Çok fazla alan]] kaplamamak için Obsidian, anlık görüntüleri silmeden önce belirli "
    "bir gün sayısı boyunca saklar. Anlık görüntüler, yalnızca değişiklikleri değil, dosyalarınızın tam içeriğini "
    "yakalar ve önceki herhangi bir sürümü geri yüklemenize olanak tanır.\n\n"
    "> [!info]+ Bilgi\n"
    "> Varsayılan olarak anlık görüntüler birbirinden en az 5 dakika arayla kaydedilir ve 7 gün boyunca saklanır. "
    "Her iki aralığı da **[[Ayarlar]] → Yerleşik Eklentiler → Dosya Kurtarma** altından yapılandırabilirsiniz.\n"
)
VAULT = {"tr/Eklentiler/Dosya Kurtarma.md": PAGE}
QUESTION = "Dosya Kurtarma anlık görüntüleri kaç gün saklar?"
NEXT_TO_IT = (
    "Dosya Kurtarma eksiksiz bir yedekleme çözümü değildir ve Obsidian dosyalarınızı ayrıca yedeklemenizi öneririz."
)


def _ask(make_ctx: MakeContext, model: object, question: str = QUESTION) -> Answer:
    turn = Turn([{"role": "user", "content": question}], chat_id="q")
    return answer_turn(make_ctx(VAULT), ScriptedProvider([model]), turn)  # type: ignore[list-item]


def _writes(text: str):  # type: ignore[no-untyped-def]
    def write(_: ChatRequest) -> str:
        return json.dumps({"sentences": [{"text": text, "cite": 1}]})

    return write


def test_a_sentence_without_the_number_asked_for_is_dropped_and_the_number_quoted(
    make_ctx: MakeContext, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="sentinel.answer"):
        answer = _ask(make_ctx, _writes(NEXT_TO_IT))
    assert not answer.answered and answer.dropped == 1, answer.answer  # the support gate alone kept it
    assert "7 gün boyunca saklanır" in answer.answer
    assert any("asks for a number" in note for note in answer.notes)
    left_out = [r.getMessage() for r in caplog.records if r.getMessage().startswith("left out by")]
    assert left_out == [f"left out by gates.quantity: [1] {NEXT_TO_IT}"]  # which sentence, by which check


def test_a_sentence_giving_the_number_is_kept(make_ctx: MakeContext) -> None:
    answer = _ask(make_ctx, _writes("Anlık görüntüler 7 gün boyunca saklanır."))
    assert answer.answered and answer.answer == "Anlık görüntüler 7 gün boyunca saklanır. [1]"


def test_the_quoted_answer_to_a_number_question_quotes_the_sentence_giving_one(make_ctx: MakeContext) -> None:
    """With the model down, the sentence sharing most words ("… belirli bir gün sayısı boyunca saklar") gives no
    number; the one giving "7 gün" is quoted."""

    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    assert "7 gün boyunca saklanır" in _ask(make_ctx, down).answer


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How many days does File recovery keep snapshots?", True),
        ("Wie lange werden die Sicherungskopien aufbewahrt?", True),
        ("Innerhalb welcher Frist bekomme ich eine Erstattung?", True),
        ("¿Cuántos días se guardan las instantáneas?", True),
        ("When was Sync encryption version 3 released?", True),
        ("und wie oft?", True),
        ("How often are snapshots taken?", True),
        ("¿Con qué frecuencia se guardan?", True),
        ("Peki ne sıklıkla kaydedilir?", True),
        ("Where does File recovery keep snapshots?", False),
        ("¿Con qué nombre crea Obsidian la nota diaria?", False),
        ("When I close Obsidian, are my notes saved?", False),
        ("Was kostet die Gönner-Stufe?", True),  # a price is an amount
        ("What does the Patron level cost?", True),
        ("¿Qué precio tiene el nivel Patron?", True),
        ("Patron seviyesinin fiyatı ne?", True),
        ("What does the cost field show?", False),
    ],
)
def test_which_questions_ask_for_a_number(question: str, asks: bool) -> None:
    assert asks_for_a_number(question) is asks


def test_a_sentence_giving_only_a_version_does_not_answer_a_number_question(make_ctx: MakeContext) -> None:
    """Seen on the quoted path (docs/answers.md, stop 47, row 7): a setup page's "Version `1.4.16`" passed as the
    number a "within which deadline?" question asked for. A version names a release, not a quantity: the
    sentence is dropped and the page's "7 gün" quoted."""
    came = "Dosya Kurtarma, Obsidian sürüm 1.4.16 ile geldi."
    vault = {"tr/Eklentiler/Dosya Kurtarma.md": f"{PAGE}\n{came}\n"}
    turn = Turn([{"role": "user", "content": QUESTION}], chat_id="q")
    answer = answer_turn(make_ctx(vault), ScriptedProvider([_writes(came)]), turn)  # type: ignore[list-item]
    assert not answer.answered and answer.dropped == 1, answer.answer
    assert "7 gün boyunca saklanır" in answer.answer


@pytest.mark.parametrize(
    ("text", "gives"),
    [
        ("Obsidian Sync requires Version `1.4.16` or later.", False),
        ("It was introduced in Obsidian version 1.7.", False),
        ("Update to v1.8.3 first.", False),
        ("Bu özellik sürüm 1.5 ile geldi.", False),
        ("Refunds are possible within 7 days.", True),
        ("The file may be 1.5 GB at most.", True),
        ("Version 1.7 keeps notes for twelve months.", True),
    ],
)
def test_a_version_is_not_a_number(text: str, gives: bool) -> None:
    assert gives_a_number(text) is gives


@pytest.mark.parametrize(
    ("text", "gives"),
    [
        ("1. Open **Settings**.", False),
        ("  3) Select **Sync** in the sidebar.", False),
        ("> 2. Das Sync-Abonnement wurde gekündigt.", False),
        ("2. Notes are kept for 12 months.", True),
        ("Step 1. is the only one.", True),
    ],
)
def test_an_ordered_lists_marker_is_not_a_number(text: str, gives: bool) -> None:
    """Seen in a packet for "How long does Obsidian Sync keep the version history of my notes?": a page's
    numbered steps ("1. Open Settings …") counted as sentences giving a number."""
    assert gives_a_number(text) is gives


@pytest.mark.parametrize(
    ("text", "question", "gives"),
    [
        ("Sync takes a snapshot daily.", "How often does Sync take snapshots?", True),
        ("Sicherungskopien verbleiben lokal auf jedem Gerät.", "und wie oft?", False),
        ("Sicherungskopien werden alle 5 Minuten gespeichert.", "und wie oft?", True),
        ("Die Sicherung läuft täglich.", "Wie oft läuft die Sicherung?", True),
        ("Die Sicherungskopien liegen außerhalb des Vaults.", "und wie oft?", False),
        ("Sync takes a snapshot daily.", "How many snapshots does Sync keep?", False),
    ],
)
def test_how_often_is_answered_by_a_number_or_a_word_saying_how_often(text: str, question: str, gives: bool) -> None:
    assert gives_what_is_asked(text, question) is gives


# Two sections of the eval vault's en/Obsidian Sync/Frequently asked questions.md, verbatim.
FAQ = (
    "# Frequently asked questions\n\n## General\n\n### Does Obsidian work with Apple's Lockdown Mode?\n\n"
    "Obsidian can be used in [Lockdown Mode](https://support.apple.com/en-us/105120) as long as Obsidian is added "
    "as an exclusion.\n\n## Data retention\n\n### How long do you keep the version history?\n\n"
    "[[Version history]] depends on your [[Plans and storage limits|Obsidian Sync plan]]. On the Standard plan your "
    "notes are retained for 1 month. On the Plus plan your notes are retained for 12 months. After this period of "
    "time the older versions are deleted.\n"
)
HISTORY_QUESTION = "How long does Obsidian Sync keep the version history of my notes?"


def test_a_links_address_is_not_the_number_asked_for(make_ctx: MakeContext) -> None:
    """Seen in the browser (stop 49, row 10): with the model's sentences dropped, the quoted answer opened with
    "Obsidian can be used in Lockdown Mode as long as …", its link's "105120" taken for the duration asked for.
    The sentence giving "1 month" is quoted first, the Lockdown one not at all."""

    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    turn = Turn([{"role": "user", "content": HISTORY_QUESTION}], chat_id="q")
    answer = answer_turn(make_ctx({"en/Frequently asked questions.md": FAQ}), ScriptedProvider([down]), turn)
    first_quote = answer.answer.splitlines()[2]
    assert "retained for 1 month" in first_quote, answer.answer
    assert "Lockdown" not in answer.answer, answer.answer


@pytest.mark.parametrize(
    ("text", "gives"),
    [
        ("Obsidian can be used in [Lockdown Mode](https://support.apple.com/en-us/105120) as long as …", False),
        ("If [Lockdown Mode](<https://support.apple.com/en-us/105120>) is enabled, files will not save.", False),
        ("Check the status at https://status.example.com/2024/incidents first.", False),
        ("See [the notes](Daily/2024-01-01.md) for more.", False),
        ("Notes are kept for [30 days](https://example.com/retention).", True),
        ("Snapshots are kept 7 days (see https://example.com).", True),
    ],
)
def test_a_links_address_gives_no_number(text: str, gives: bool) -> None:
    assert gives_a_number(text) is gives


# The eval vault's de/Obsidian Sync pages, verbatim: the status icon's menu, and the plans table.
ICON_MENU = (
    "# Statussymbol und Meldungen\n\n## Sync-Statussymbol\n\n"
    "Durch Klicken oder Tippen auf das Symbol öffnet sich ein Kontextmenü mit folgenden Optionen:\n"
    "- ![[lucide-history.svg#icon]] [[Versionsgeschichte|Versionsverlauf]] (Ausgegraut, wenn keine Notiz angezeigt "
    "wird)\n- ![[lucide-align-left.svg#icon]] [[#Sync-Aktivitätsprotokoll|Sync-Log]] öffnen\n"
    "- ![[lucide-trash-2.svg#icon]] [[Versionsgeschichte#Eine gelöschte Datei wiederherstellen|Gelöschte Dateien]]\n"
    "- ![[lucide-cog.svg#icon]] [[Sync-Einstellungen und selektive Synchronisierung|Sync-Einstellungen]]\n"
)
PLANS = (
    "# Tarife und Speicherlimits\n\n## Tarife\n\nNachfolgend ein Vergleich zwischen dem Standard- und dem "
    "Plus-Tarif:\n\n| | Sync Standard | Sync Plus |\n| --- | --- | --- |\n| Synchronisierte Vaults | 1 | 10 |\n"
    "| Maximale Dateigröße | 5 MB | 200 MB |\n| Gesamtspeicher | 1 GB | 10 GB bis 100 GB |\n"
)


def test_an_icons_file_name_gives_no_number(make_ctx: MakeContext) -> None:
    """Seen in the browser (stop 49, bench/browser_turns_more.tsv row 2): "Wie groß darf eine einzelne Datei bei
    Sync Standard sein?" was answered by quoting the status icon's menu item "Gelöschte Dateien", the "2" of its
    icon "lucide-trash-2.svg" read as the number asked for. The size row is quoted, the menu item not at all."""

    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    vault = {"de/Statussymbol und Meldungen.md": ICON_MENU, "de/Tarife und Speicherlimits.md": PLANS}
    turn = Turn([{"role": "user", "content": "Wie groß darf eine einzelne Datei bei Sync Standard sein?"}], "q")
    answer = answer_turn(make_ctx(vault), ScriptedProvider([down]), turn)
    assert "| Maximale Dateigröße | 5 MB | 200 MB |" in answer.answer, answer.answer
    assert "Gelöschte" not in answer.answer, answer.answer


@pytest.mark.parametrize(
    ("text", "gives"),
    [
        ("- ![[lucide-trash-2.svg#icon]] [[Versionsgeschichte#Eine gelöschte Datei|Gelöschte Dateien]]", False),
        ("![[Engelbart.jpg|200]] Douglas Engelbart at his desk.", False),
        ("Open the exported file notion-export-2.png.", False),
        ("Select the `lucide-edit-3` icon, or run `obsidian --port 3000`.", False),
        ("Choose the lucide-picture-in-picture-2 icon.", False),
        ("A file may be 5 MB on Sync Standard (see ![[lucide-trash-2.svg#icon]]).", True),
        ("See [[2024-01-01]] for the day's notes.", True),
        ("Snapshots are kept for 7 days in `.obsidian`.", True),
    ],
)
def test_a_file_icon_or_code_name_gives_no_number(text: str, gives: bool) -> None:
    assert gives_a_number(text) is gives
