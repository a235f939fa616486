"""The round-five vault questions (bench/vault_questions_fresh.tsv, set ``vault-fresh``): 80 questions, 20 a
language, each answered in its own language by one page of the eval vault. ``relevant`` is every copy of that
page (the pages sharing its Publish ``permalink``) whose text states the fact, checked here by one pattern per
question: every labelled page matches it, and no unlabelled copy of the page does. The set reports only."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from bench.retrieval import CHOOSING, FRESH_FILE, FRESH_SET, QUERY_FILES, VAULT_FILE, load_queries
from tests.support.eval_data import require_eval_vault

LANGUAGES = ("en", "de", "es", "tr")
PERMALINK = re.compile(r"^permalink:\s*(\S+)", re.MULTILINE)

# The text that states each question's answer, in any of the page's languages (written with the set).
STATES = {
    "f001": r"Shift\+Enter|Umschalt\+Eingabe",
    "f002": r"10[,.\s]?000",
    "f003": r"Shift\+(Alt|Option)|Umschalt",
    "f004": r"don't update automatically|nicht automatisch|no se actualizan automáticamente",
    "f005": r"\.json",
    "f006": r"Fold more|Noch mehr einklappen",
    "f007": r"1:1",
    "f008": r"Standard|Estándar",
    "f009": r"Shift\+Enter",
    "f010": r"Orphans|Verwaiste|[Hh]uérfan",
    "f011": r"depth|Tiefe|profundidad",
    "f012": r"[Cc]ookie",
    "f013": r"clipboard|Zwischenablage",
    "f014": r"Defuddle",
    "f015": r"last cursor position|letzten Cursorposition|última posición",
    "f016": r"multiple hotkey combinations",
    "f017": r"US keyboard layout",
    "f018": r"`caution`",
    "f019": r"visible to the public again|wieder öffentlich|visible para el público",
    "f020": r"filter icon",
    "f021": r"var\(--color-blue\)",
    "f022": r"openfreemap",
    "f023": r"Lokale Diagramme können nicht|can't bookmark local graphs|No puedes marcar grafos locales",
    "f024": r"3 [Tt]abs|3 pestañas",
    "f025": r"zuerst erstellt|first created",
    "f026": r"hasTag\(\"a\"\)",
    "f027": r"nicht neu starten|don[’']t need to restart|No necesitas reiniciar",
    "f028": r"global umzubenennen|rename it globally|renombrarla globalmente",
    "f029": r"`\.git`",
    "f030": r"Ignorierten Dateien|\*\*Excluded files\*\* list does not remove",
    "f031": r"\.obsidian-mobile",
    "f032": r"/chat/completions",
    "f033": r"selectorHtml:#main",
    "f034": r"Ollama benötigt keinen API|Ollama does(n't| not) require an API",
    "f035": r"paneType=tab",
    "f036": r"`silent`",
    "f037": r"Quellcode-Ansicht|Source mode|modo de código fuente",
    "f038": r"`Escape`|`Esc`",
    "f039": r"Toggle between two notes|zwei Notizen",
    "f040": r"chronolog|cronológic",
    "f041": r"\^daily-notes-date",
    "f042": r"\^\^highlight\^\^",
    "f043": r"1\.9\.3",
    "f044": r"interoperab",
    "f045": r"cover Image\.png",
    "f046": r"5\.1",
    "f047": r"[Dd]esinstal|[Uu]ninstall",
    "f048": r"7\.1",
    "f049": r"Face ID",
    "f050": r"1\.13\.0",
    "f051": r"Capturar en la nota diaria|Capture to Daily Note",
    "f052": r"proxy_pass",
    "f053": r"x-obsidian-custom-domain",
    "f054": r"www\.mysite\.com/\*",
    "f055": r"todos los usuarios|all users|alle Benutzer",
    "f056": r"script de despliegue|deployment script|Bereitstellungsskript",
    "f057": r"[Bb]loque bajo el cursor|block under cursor|Block unter dem Cursor",
    "f058": r"Shift|Mayús|Umschalttaste",
    "f059": r"recuperar|recover|wiederherstell",
    "f060": r"hora actual|current time|[Aa]ktuelle [Zz]eit",
    "f061": r"söz dizimi vurgulama|[Ss]yntax highlighting|Syntaxhervorhebung|[Rr]esaltado de sintaxis",
    "f062": r"data-site",
    "f063": r"Tag Manager",
    "f064": r"uBlock",
    "f065": r"`Ctrl`",
    "f066": r"sonuna|end of the active note|Ende der aktiven|final de la nota",
    "f067": r"cihaza özgü|device-specific|gerätespezifisch|geräteabhängig",
    "f068": r"Farkı göster|Show changes|Unterschied",
    "f069": r"105120",
    "f070": r"lucide-gallery-vertical",
    "f071": r"`Alt",
    "f072": r"publish\.css",
    "f073": r"ağ hatası|network error|error de red|Netzwerkfehler",
    "f074": r"Arama sonuçlarını kopyala|Copy search results|Suchergebnisse kopieren",
    "f075": r"Değiştirilme zamanına göre sırala \(yeniden eskiye\)|Modified time \(new to old\)"
    r"|Letzte Bearbeitung \(neu - alt\)",
    "f076": r"task-todo:",
    "f077": r":null\]",
    "f078": r"32 ?(x|×|by|mal|por) ?32",
    "f079": r"koltuk sayısına göre|per seat|pro Platz|por número de puestos|pro Sitz",
    "f080": r"\[1,\s?2,\s?2,\s?3\]\.unique\(\)",
}


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _relevant(row: dict[str, str]) -> list[str]:
    return [p.strip() for p in row["relevant"].split(";")]


def _copies(vault: Path) -> dict[str, list[str]]:
    """Every page of the eval vault -> the pages that publish at its permalink (itself alone without one)."""
    link = {}
    for page in vault.rglob("*.md"):
        found = PERMALINK.search(page.read_text(encoding="utf-8"))
        link[page.relative_to(vault).as_posix()] = found.group(1) if found else None
    by_link: dict[str, list[str]] = {}
    for path, name in link.items():
        if name:
            by_link.setdefault(name, []).append(path)
    return {path: sorted(by_link[name]) if name else [path] for path, name in link.items()}


def test_eighty_questions_twenty_a_language_each_with_its_pattern() -> None:
    rows = _rows(FRESH_FILE)
    assert len({row["id"] for row in rows}) == len(rows) == 80
    assert all(sum(row["lang"] == lang for row in rows) == 20 for lang in LANGUAGES)
    assert {row["kind"] for row in rows} <= {"fact", "howto"}
    assert set(STATES) == {row["id"] for row in rows}


def test_each_question_is_answered_by_copies_of_one_page_in_its_own_language_among_them() -> None:
    vault = require_eval_vault()
    copies = _copies(vault)
    wrong = []
    for row in _rows(FRESH_FILE):
        relevant = _relevant(row)
        if any(path not in copies for path in relevant):
            wrong.append((row["id"], "missing page"))
        elif len({tuple(copies[path]) for path in relevant}) != 1:
            wrong.append((row["id"], "more than one page"))
        elif not any(path.startswith(row["lang"] + "/") for path in relevant):
            wrong.append((row["id"], "no copy in its language"))
    assert not wrong


def test_every_copy_that_states_the_answer_is_labelled_and_no_other() -> None:
    vault = require_eval_vault()
    copies = _copies(vault)
    wrong = []
    for row in _rows(FRESH_FILE):
        relevant = set(_relevant(row))
        family = copies[next(iter(relevant))]
        states = {p for p in family if re.search(STATES[row["id"]], (vault / p).read_text(encoding="utf-8"))}
        if states != relevant:
            wrong.append((row["id"], sorted(states ^ relevant)))
    assert not wrong


# that no question names a labelled page by its title: tests/test_vault_questions.py, for both sets


def test_no_question_is_one_of_the_other_sets() -> None:
    files = [*QUERY_FILES.values(), VAULT_FILE]
    others = {row["query"].casefold() for path in files if path.is_file() for row in _rows(path)}
    assert not others & {row["query"].casefold() for row in _rows(FRESH_FILE)}


def test_the_set_reports_only_and_is_read_whole_as_labelled() -> None:
    assert FRESH_SET not in CHOOSING
    rows = {row["id"]: row for row in _rows(FRESH_FILE)}
    queries = load_queries(FRESH_FILE)
    assert len(queries) == len(rows)
    for q in queries:
        assert q.relevant == set(_relevant(rows[q.id]))
