"""The definition gate's code checks, sentence by sentence, in the four languages it knows."""

from __future__ import annotations

import pytest

from sentinel.gates import definition

DEFINES = [
    ("The growth queue is the list of names that links reach for.", "growth queue"),
    ("In short, the growth queue is the set of unresolved link targets.", "growth queue"),
    ("Obsidian Sync, our paid add-on, is a service that syncs notes.", "Obsidian Sync"),
    ("Core plugins are plugins that ship with Obsidian.", "Core plugins"),
    ("A folder of notes is called a vault.", "vault"),
    ("Growth queue means the names nothing answers.", "growth queue"),
    ("Ein Vault ist ein Ordner in deinem lokalen Dateisystem.", "Vault"),
    ("Unter einem Vault versteht man einen Ordner.", "Vault"),
    ("Una bóveda es una carpeta en tu sistema de archivos.", "bóveda"),
    ("Obsidian Sync es un servicio de sincronización.", "Obsidian Sync"),
    ("Obsidian Sync, notlarınızı cihazlar arasında eşitleyen bir hizmettir.", "Obsidian Sync"),
    ("Kasa, notlarınızı bir arada tutan bir klasördür.", "Kasa"),
    (
        "**Kasa**, dosya sisteminizde notlar ve yapılandırma içeren bir `.obsidian` klasörü barındıran bir klasördür.",
        "Kasa",
    ),
    ("Markdown, metni biçimlendirmek için kullanılan bir işaretleme dilidir.", "Markdown"),
]
DOES_NOT = [
    ("Öffne die **Einstellungen**.", "Einstellungen"),  # an instruction
    ("Du kannst hier suchen, wann immer du willst.", "Suchen"),  # the verb, not the noun
    ("Search is available on mobile.", "Search"),  # a copula with no noun phrase
    ("Obsidian Publish is not optimized for streaming video.", "Obsidian Publish"),  # a negation
    ("We looked at the growth queue again today.", "growth queue"),  # a mention
    ("Use Search to find notes.", "Search"),
    ("Bir kasa oluştur.", "kasa"),  # a Turkish command ending like a copula
    ("Abre la Configuración.", "Configuración"),
    # The two the code let through to the small Qwen over the 40-page sample (bench/fidelity_sample.py): a
    # genitive subject with a future verb ("you will need to log in from the Account section of Settings"),
    # and a passive perfect ("local and remote vaults have been fully synced").
    ("**Ayarlar**'ın Hesap bölümünden uygulamaya tekrar giriş yapmanız gerekecektir.", "Ayarlar"),
    ("Yerel ve uzak kasalar tamamen senkronize edilmiştir.", "Yerel ve uzak kasalar"),
    ("Yerleşik Eklentiler ayarlarında Sync etkinleştirilmiş olmalıdır.", "Yerleşik Eklentiler"),
    # What the code let through over the whole eval vault: the name opens the sentence without being what it
    # says is something ("the data you can store using Obsidian Sync depends on your plan"; "you need a custom
    # domain"; "if you don't see 'vault size exceeds', it means ..."; "services like Dropbox ... are folder-based").
    ("Obsidian Sync kullanarak depolayabileceğiniz veri miktarı abonelik planınıza bağlıdır.", "Obsidian Sync"),
    ("Obsidian Publish sitenizde analitik kullanmak için bir özel alan adına ihtiyacınız vardır.", "Obsidian Publish"),
    ("**Kasa boyutu limiti aşıyor** ifadesini görmüyorsanız, bu henüz limite ulaşmadığınız anlamına gelir.", "Kasa"),
    ("Dropbox, Google Drive, iCloud ve OneDrive gibi hizmetler klasör tabanlıdır.", "Dropbox"),
]


@pytest.mark.parametrize(("sentence", "name"), DEFINES)
def test_definitional_shapes_pass(sentence: str, name: str) -> None:
    language = definition.language_of(sentence)
    assert definition.worth_asking(sentence, name, language), (sentence, language)


@pytest.mark.parametrize(("sentence", "name"), DOES_NOT)
def test_other_shapes_do_not(sentence: str, name: str) -> None:
    assert not definition.worth_asking(sentence, name, definition.language_of(sentence))


def test_questions_and_commands_are_not_statements() -> None:
    assert not definition.plain_statement("The growth queue is the list, isn't it?", "en").passed
    assert not definition.plain_statement("¿Qué es una bóveda?", "es").passed
    assert not definition.plain_statement("Beachte, die Einstellungen sind ein Menü.", "de").passed
    assert not definition.plain_statement("Ayarları açın.", "tr").passed
    assert definition.plain_statement("Search is a core plugin that finds notes.", "en").passed


def test_only_the_first_letter_may_change_case() -> None:
    assert definition.name_as_subject("Growth queue is the list of open names.", "growth queue", "en").passed
    assert not definition.name_as_subject("The Growth Queue is the list of open names.", "growth queue", "en").passed
    assert not definition.name_as_subject("suchen ist eine Funktion.", "Suchen", "de").passed


def _candidate(sentence: str, yes: bool, contrary: bool) -> definition.Candidate:
    return definition.Candidate(sentence, "notes/a.md", "en", yes, contrary)


def test_two_answer_pairs_are_needed_and_both_must_agree() -> None:
    one, two = DEFINES[0][0], DEFINES[1][0]
    both = definition.judge_definitions([_candidate(one, True, False), _candidate(two, True, False)], "growth queue")
    assert both.passed and len(both.kept) == 2
    contrary = definition.judge_definitions([_candidate(one, True, False), _candidate(two, True, True)], "growth queue")
    assert not contrary.passed and contrary.reason.startswith("one defining sentence")
    repeated = definition.judge_definitions([_candidate(one, True, False)] * 2, "growth queue")
    assert not repeated.passed


def test_language_by_stop_words() -> None:
    assert definition.language_of("Der Vault ist ein Ordner und die Notizen sind Dateien.") == "de"
    assert definition.language_of("The vault is a folder and the notes are files.") == "en"
    assert definition.language_of("Vault.") == ""
