"""A label copied as a sentence is no answer (gates/labels.py): a table's header row, a heading trail.

Seen in the browser (bench/browser_turns_eighth.tsv row 1, on 8f95cf4): "aramaya hangi operatoru yazmam lazim?" was
answered "Arama operatörü | Açıklama [1]", the operator table's header, every word of it in the passage. The page is
the eval vault's tr/Eklentiler/Ara.md, its operator table's last rows verbatim (cells unpadded).
"""

from __future__ import annotations

import logging

import pytest

from sentinel.answer import Answer, Turn, answer_turn
from sentinel.gates.labels import says_more_than_a_header, says_more_than_its_trail
from sentinel.gates.support import CitedSentence, Evidence
from tests.support.scripted import ScriptedProvider, cited_sentences
from tests.support.tool_context import MakeContext

PAGE = (
    "# Ara\n\n## Arama operatörleri\n\n"
    "Arama operatörleri, arama teriminizi daraltmanıza yardımcı olur.\n\n"
    "| Arama operatörü | Açıklama |\n"
    "| --------------- | -------- |\n"
    "| `section:` | Aynı bölüm içindeki (iki başlık arasındaki metin) eşleşmeleri bul.<p/>"
    "Örnek: `section:(dog cat)`. |\n"
    "| `task:` | Bir [[Temel biçimlendirme söz dizimi#Görev Listesi\\|görevde]] blok bazında eşleşmeleri bul.<p/>"
    "Örnek: `task:call`. |\n"
    "| `task-todo:` | *Tamamlanmamış* bir [[Temel biçimlendirme söz dizimi#Görev Listesi\\|görevde]] blok bazında "
    "eşleşmeleri bul.<p/>Örnek: `task-todo:call`. |\n"
    "| `task-done:` | *Tamamlanmış* bir [[Temel biçimlendirme söz dizimi#Görev Listesi\\|görevde]] blok bazında "
    "eşleşmeleri bul.<p/>Örnek: `task-done:call`. |\n"
)
VAULT = {"tr/Eklentiler/Ara.md": PAGE}
QUESTION = "notlarimda sadece tamamlanmamış görevlerin icinde arama yapcam, aramaya hangi operatoru yazmam lazim?"
HEADER = "Arama operatörü | Açıklama"


def _ask(make_ctx: MakeContext, written: str) -> Answer:
    turn = Turn([{"role": "user", "content": QUESTION}], chat_id="h")
    return answer_turn(make_ctx(VAULT), ScriptedProvider([cited_sentences(written)]), turn)


def test_a_copied_header_row_is_dropped_and_the_table_quoted(
    make_ctx: MakeContext, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="sentinel.answer"):
        answer = _ask(make_ctx, HEADER)
    assert not answer.answered and answer.dropped == 1, answer.answer  # the support gate alone kept it
    assert "task-todo:" in answer.answer, answer.answer  # a body row is quoted, under its header
    assert any("header row" in note for note in answer.notes)
    left_out = [r.getMessage() for r in caplog.records if r.getMessage().startswith("left out by")]
    assert left_out == [f"left out by gates.labels: [1] {HEADER}"]


def test_a_row_copied_with_its_words_is_kept(make_ctx: MakeContext) -> None:
    row = "`task-todo:` Tamamlanmamış bir görevde blok bazında eşleşmeleri bul."
    answer = _ask(make_ctx, row)
    assert answer.answered and "task-todo:" in answer.answer, answer.answer


@pytest.mark.parametrize(
    ("text", "only_header"),
    [
        ("Arama operatörü | Açıklama", True),
        ("| Arama operatörü | Açıklama |", True),
        ("Açıklama", True),
        ("The Arama operatörü column lists task-todo:", False),  # a row's word
        ("Arama operatörleri, arama teriminizi daraltmanıza yardımcı olur.", False),  # prose, not the header
        ("| | |", False),  # no word: other gates decide
    ],
)
def test_which_sentences_are_only_a_header(text: str, only_header: bool) -> None:
    evidence = Evidence(1, PAGE)
    verdict = says_more_than_a_header([CitedSentence(text, 1)], {1: evidence})
    assert (verdict.dropped == [CitedSentence(text, 1)]) is only_header
    assert verdict.passed is not only_header


def test_a_passage_without_a_table_drops_nothing() -> None:
    prose = Evidence(1, "Arama operatörü ve Açıklama burada iki kelime.")
    verdict = says_more_than_a_header([CitedSentence("Arama operatörü Açıklama", 1)], {1: prose})
    assert verdict.passed and verdict.dropped == []


# The whole operator table, as the eval vault's page has it (13 rows, cells unpadded): a table of many short rows is
# indexed a row at a time, each row under its header with no separator line between (``vault.entries``)
OPERATORS = [
    ("file:", "Dosya adında metin bul."),
    ("path:", "Dosya yolunda metin bul."),
    ("content:", "Dosya içeriğinde metin bul."),
    ("match-case:", "Büyük-küçük harfe duyarlı eşleşme."),
    ("ignore-case:", "Büyük-küçük harfe duyarsız eşleşme."),
    ("tag:", "Dosyada etiket bul."),
    ("line:", "`x` ile eşleşen en az bir satır içeren dosyaları bul."),
    ("block:", "Aynı blok içindeki eşleşmeleri bul."),
    ("section:", "Aynı bölüm içindeki eşleşmeleri bul."),
    ("task:", "Bir görevde blok bazında eşleşmeleri bul."),
    ("task-todo:", "*Tamamlanmamış* bir görevde blok bazında eşleşmeleri bul."),
    ("task-done:", "*Tamamlanmış* bir görevde blok bazında eşleşmeleri bul."),
]
WHOLE_TABLE = "# Ara\n\n## Arama operatörleri\n\n| Arama operatörü | Açıklama |\n| --- | --- |\n" + "".join(
    f"| `{name}` | {what} |\n" for name, what in OPERATORS
)


def test_a_row_indexed_alone_is_read_and_quoted_as_a_table(make_ctx: MakeContext) -> None:
    """Seen in the browser (the eighth file's row 1 on 69528b8): the passage was one row's unit, its header line and
    the row with no separator line, so the header was no table's header to the check, and the quote showed raw pipes."""
    turn = Turn([{"role": "user", "content": QUESTION}], chat_id="w")
    ctx = make_ctx({"tr/Eklentiler/Ara.md": WHOLE_TABLE})
    answer = answer_turn(ctx, ScriptedProvider([cited_sentences(HEADER)]), turn)
    assert not answer.answered and answer.dropped == 1, answer.answer
    assert "> | --- | --- |\n> | `task" in answer.answer, answer.answer  # drawn as a table: header, separator, row


# The eval vault's tr/Obsidian Sync/Obsidian Sync sorun giderme.md, the section tr09's passage came from (its headings
# and opening verbatim)
TRAIL = "Obsidian Sync sorun giderme > Genel > Çakışma çözümleme > Çakışma çözümleme seçenekleri"
CONFLICTS = (
    "# Obsidian Sync sorun giderme\n\n## Genel\n\n### Çakışma çözümleme\n\n#### Çakışma çözümleme seçenekleri\n\n"
    "Obsidian 1.9.7'den itibaren çakışmaların nasıl ele alınacağını seçebilirsiniz. Bu ayarı yapılandırmak için:\n\n"
    "1. **[[Ayarlar]]**'ı açın.\n2. Kenar çubuğunda **Sync**'i seçin.\n"
)


def test_a_copied_heading_trail_is_dropped_and_the_passage_quoted(make_ctx: MakeContext) -> None:
    """Seen in bench/answers_set.tsv's tr09 (stop 55): the answer was the passage's heading trail, written as a
    sentence, to which version lets a person choose how conflicts are handled."""
    question = "Obsidian'ın hangi sürümünden itibaren Sync çakışmalarının nasıl ele alınacağı seçilebilir?"
    turn = Turn([{"role": "user", "content": question}], chat_id="t")
    ctx = make_ctx({"tr/Obsidian Sync/Obsidian Sync sorun giderme.md": CONFLICTS})
    answer = answer_turn(ctx, ScriptedProvider([cited_sentences(TRAIL)]), turn)
    assert not answer.answered and "1.9.7" in answer.answer, answer.answer
    assert any("heading trail" in note for note in answer.notes), answer.notes


@pytest.mark.parametrize(
    ("text", "only_where"),
    [
        (TRAIL, True),
        ("Çakışma çözümleme seçenekleri", True),
        ("Obsidian 1.9.7 sürümünden itibaren çakışma çözümleme seçilebilir.", False),  # says what, under its heading
        ("Evet.", False),  # no content word: other gates decide
    ],
)
def test_which_sentences_only_say_where(text: str, only_where: bool) -> None:
    evidence = Evidence(1, "Obsidian 1.9.7 sürümünden itibaren, …", "Obsidian Sync sorun giderme", TRAIL)
    verdict = says_more_than_its_trail([CitedSentence(text, 1)], {1: evidence})
    assert (verdict.dropped == [CitedSentence(text, 1)]) is only_where


def test_another_passages_trail_cited_elsewhere_is_dropped_too() -> None:
    """tr09's draft: the trail was passage 1's, cited as passage 3 (whose words held it for the support gate)."""
    packet = {
        1: Evidence(1, "Obsidian 1.9.7'den itibaren …", "Obsidian Sync sorun giderme", TRAIL),
        3: Evidence(3, "Sync etkinlik günlüğü …", "Durum simgesi ve mesajlar", "Durum simgesi ve mesajlar > Genel"),
    }
    assert says_more_than_its_trail([CitedSentence(TRAIL, 3)], packet).dropped == [CitedSentence(TRAIL, 3)]
