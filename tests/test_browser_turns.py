"""The browser check's turns and judge (bench/browser_turns.py), no browser needed: the shipped TSV parses into the
12 turns of docs/answers.md's browser tables, each fact pattern gives those tables' verdict on the text they
quote, the markup detector flags each marker, a bad TSV is refused naming its line, and `bench/browser_chat.py
--help` runs without importing Open WebUI's side (Playwright, the test servers, sentinel); the held-out third
file asks only of pages the earlier two never used, the fourth, fifth and sixth only of pages no earlier turns file
or answer set used, and each fact a held-out file expects is on the page it names."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from bench.browser_turns import MARKERS, TURNS_FILE, TurnsFileError, load_turns, markup_shown, trimmed
from tests.support.eval_data import require_eval_vault

REPO = Path(__file__).resolve().parents[1]
HEADER = "n\tchat\tturn\tpage\tfact\n"

# What a person read on stop 46's final merge (docs/answers.md, "In the browser on stop 46's final merge"), trimmed
# to the sentences that decide, with that table's verdict.
READ_ON_STOP_46 = {
    1: (
        "Varsayılan olarak anlık görüntüler birbirinden en az 5 dakika arayla kaydedilir ve 7 gün boyunca saklanır.",
        True,
    ),
    2: ("… en az 5 dakika arayla kaydedilir ve 7 gün boyunca saklanır.", True),
    3: ("Kaydedildi: notes/Dosya Kurtarma anlık görüntüleri kaç gün.md senin sözlerinle", True),
    4: (
        "De forma predeterminada, Obsidian crea una nueva nota vacía con el nombre de la fecha de hoy en formato "
        "YYYY-MM-DD.",
        True,
    ),
    5: (
        "Si prefieres tener tus notas diarias en una carpeta separada, puedes configurar la Ubicación de archivo "
        "nuevo en las opciones del complemento",
        True,
    ),
    6: ("Guardado notes/Con qué nombre crea Obsidian la.md con tus palabras", True),
    7: (
        "Die Erstattung eines Obsidian Sync- oder Obsidian Publish-Abonnements führt zur Löschung aller "
        "Remote-Tresore … Nein, deine Daten werden in solchen Fällen 30 Tage lang aufbewahrt.",
        False,
    ),
    9: ("Saved notes/I want to try the Canvas.md with your words", True),
    8: ("I want to try the Canvas plugin for my project map next week.", True),
    10: (
        "On the Standard plan, notes are retained for 1 month, while on the Plus plan, they are kept for 12 months.",
        True,
    ),
    11: ("On the Plus plan your notes are retained for 12 months.", True),
    12: (
        "Standardmäßig werden Sicherungskopien mindestens alle 5 Minuten gespeichert und 7 Tage lang aufbewahrt.",
        True,
    ),
}


def test_the_shipped_turns_are_the_docs_twelve_in_their_chats_and_order() -> None:
    turns = load_turns()
    assert [t.n for t in turns] == [1, 2, 3, 4, 5, 6, 7, 9, 8, 10, 11, 12]
    same_chat_as_before = [t.n for before, t in pairwise(turns) if t.chat == before.chat]
    assert same_chat_as_before == [2, 3, 5, 6, 11]  # the docs' "same chat as the row before"
    assert [t.n for t in turns if t.is_save] == [3, 6, 9]


@pytest.mark.parametrize("n", sorted(READ_ON_STOP_46))
def test_each_fact_pattern_gives_the_docs_verdict(n: int) -> None:
    turn = next(t for t in load_turns() if t.n == n)
    read, right = READ_ON_STOP_46[n]
    assert turn.fact_right(read) is right, (n, read)


def test_the_refund_window_is_not_any_seven_days_on_its_page() -> None:
    refund = next(t for t in load_turns() if t.n == 7)
    assert refund.fact_right("Wir bieten innerhalb von 7 Tagen nach dem Kauf eine vollständige Erstattung an.")
    assert not refund.fact_right("eine Erstattung nach mehr als 7 Tagen nach dem Kauf benötigst")
    assert not refund.fact_right("Deine Daten werden 37 Tage lang aufbewahrt.")


def test_every_pattern_of_a_turn_must_hold() -> None:
    history = next(t for t in load_turns() if t.n == 10)
    assert not history.fact_right("On the Plus plan, they are kept for 12 months.")  # the Standard plan's 1 month
    assert not history.fact_right("Notes are retained for 11 month and 12 months.")


@pytest.mark.parametrize("marker", MARKERS)
def test_each_marker_is_flagged_where_a_person_reads_it(marker: str) -> None:
    assert markup_shown(f"Snapshots are kept {marker}for 7 days.") == [marker]


def test_rendered_text_shows_no_markup() -> None:
    drawn = "From your vault (quoted):\nSnapshots are kept for 7 days [1]. Settings → Core plugins * File recovery {x}"
    assert markup_shown(drawn) == []


def test_a_table_cell_stays_one_line_and_short() -> None:
    cell = trimmed("a | b\n\nc " + "d" * 200, width=20)
    assert cell.startswith("a \\| b c d") and len(cell) == 20 and cell.endswith("…")


@pytest.mark.parametrize(
    ("rows", "named"),
    [
        ("n\tchat\tturn\n1\ta\tq\n", "the header must be"),
        (HEADER + "1\ta\tq\tP\t(7 days\n", ":2: the fact pattern '(7 days'"),
        (HEADER + "x\ta\tq\tP\tdays\n", ":2: n must be"),
        (HEADER + "1\ta\tq\tP\t\n", ":2: chat, turn and fact must not be empty"),
        (HEADER + "1\ta\tq\tP\tx\n2\tb\tq\tP\tx\n3\ta\tq\tP\tx\n", "row 3 goes back to chat 'a'"),
        (HEADER + "1\ta\tq\tP\tx\n1\tb\tq\tP\tx\n", "row number 1 is given twice"),
        (HEADER, "no turns below the header"),
    ],
)
def test_a_bad_turns_file_is_refused_naming_the_fix(tmp_path: Path, rows: str, named: str) -> None:
    bad = tmp_path / "turns.tsv"
    bad.write_text(rows, encoding="utf-8")
    with pytest.raises(TurnsFileError) as refused:
        load_turns(bad)
    assert named in str(refused.value) and str(bad) in str(refused.value)


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}"}
    command = [sys.executable, str(REPO / "bench" / "browser_chat.py"), *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=120, check=False)


def test_help_runs_without_the_browser_or_open_webui() -> None:
    shown = _bench("--help")
    assert shown.returncode == 0, shown.stderr
    assert "--out" in shown.stdout and "make openwebui" in shown.stdout
    probe = (
        "import runpy, sys\nsys.argv = ['browser_chat.py', '--help']\n"
        f"try:\n    runpy.run_path({str(REPO / 'bench' / 'browser_chat.py')!r}, run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'playwright', 'tests', 'sentinel', 'httpx'}))"
    )
    env = {**os.environ, "PYTHONPATH": f"{REPO / 'src'}{os.pathsep}{REPO}"}
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=REPO)
    assert loaded.stdout.strip().splitlines()[-1] == "[]", loaded.stdout + loaded.stderr


def test_a_bad_turns_file_stops_the_bench_before_anything_starts(tmp_path: Path) -> None:
    bad = tmp_path / "turns.tsv"
    bad.write_text(HEADER + "1\ta\tq\tP\t(7 days\n", encoding="utf-8")
    refused = _bench("--out", str(tmp_path / "out"), "--turns", str(bad))
    assert refused.returncode == 1 and "the turns file cannot be used" in refused.stderr, refused.stderr
    assert f"{bad}:2" in refused.stderr and not (tmp_path / "out").exists()
    assert TURNS_FILE.is_file()


def test_a_question_the_vault_does_not_answer_is_right_only_citing_nothing(tmp_path: Path) -> None:
    turns = tmp_path / "turns.tsv"
    turns.write_text(HEADER + "1\tes\t¿Qué tiempo hará mañana en Madrid?\t-\tLa bóveda no lo dice\n", encoding="utf-8")
    (turn,) = load_turns(turns)
    assert not turn.is_save and turn.unanswerable
    assert turn.cites_page([])
    assert not turn.cites_page(["es/Obsidian/Obsidian para Android.md"])
    assert turn.fact_right("La bóveda no lo dice. Las páginas más cercanas son …")
    assert turn.fact_right("La bóveda no menciona «Madrid». Las páginas más cercanas son …")  # the other form
    assert not turn.fact_right("Mañana en Madrid hará sol.")


def test_saying_the_vault_does_not_mention_a_name_answers_only_an_unanswerable_turn(tmp_path: Path) -> None:
    turns = tmp_path / "turns.tsv"
    turns.write_text(HEADER + "1\tde\tWie groß darf eine Datei sein?\tSync\t(?<!\\d)5 MB\n", encoding="utf-8")
    (turn,) = load_turns(turns)
    assert not turn.fact_right("Der Vault erwähnt „Sync“ nicht.")


def test_the_new_turns_file_parses_with_its_saves_and_unanswerable_questions() -> None:
    turns = load_turns(REPO / "bench" / "browser_turns_more.tsv")
    assert [t.n for t in turns if t.is_save] == [11]
    assert [t.n for t in turns if t.unanswerable] == [1, 10]


THIRD_FILE = REPO / "bench" / "browser_turns_third.tsv"


def test_the_third_turns_file_parses_with_its_save_recall_and_unanswerable_questions() -> None:
    turns = load_turns(THIRD_FILE)
    assert [t.n for t in turns] == list(range(1, 13))
    assert [t.n for t in turns if t.is_save] == [9]
    assert [t.n for t in turns if t.unanswerable] == [3, 8]
    assert {t.chat.split("-")[0] for t in turns} == {"en", "de", "es", "tr"}


def test_the_third_file_asks_of_pages_the_earlier_files_never_used() -> None:
    """Held out: a page the earlier turns chose fixes on is not asked again."""
    earlier = {
        t.page for name in ("browser_turns.tsv", "browser_turns_more.tsv") for t in load_turns(REPO / "bench" / name)
    }
    asked = {t.page for t in load_turns(THIRD_FILE) if t.page and not t.unanswerable}
    assert not {page for page in asked for used in earlier - {"", "-"} if used in page or page in used}


FOURTH_FILE = REPO / "bench" / "browser_turns_fourth.tsv"
FIFTH_FILE = REPO / "bench" / "browser_turns_fifth.tsv"
SIXTH_FILE = REPO / "bench" / "browser_turns_sixth.tsv"
SEVENTH_FILE = REPO / "bench" / "browser_turns_seventh.tsv"
EIGHTH_FILE = REPO / "bench" / "browser_turns_eighth.tsv"
# Each held-out file after the third: its save rows and its rows the vault does not answer.
HELD_OUT = {
    FOURTH_FILE: ([3], [6, 11]),
    FIFTH_FILE: ([11], [8]),
    SIXTH_FILE: ([11], [6]),
    SEVENTH_FILE: ([3], [6]),
    EIGHTH_FILE: ([11], [8]),
}
HELD_OUT_IDS = ["fourth", "fifth", "sixth", "seventh", "eighth"]


@pytest.mark.parametrize("turns_file", list(HELD_OUT), ids=HELD_OUT_IDS)
def test_a_held_out_turns_file_parses_with_its_save_recall_and_unanswerable_questions(turns_file: Path) -> None:
    turns = load_turns(turns_file)
    saves, unanswerable = HELD_OUT[turns_file]
    assert [t.n for t in turns] == list(range(1, 13))
    assert [t.n for t in turns if t.is_save] == saves
    assert [t.n for t in turns if t.unanswerable] == unanswerable
    assert {t.chat.split("-")[0] for t in turns} == {"en", "de", "es", "tr"}
    assert len({t.chat for t in turns}) == 5
    # the recall is typed in a new chat and names the saved note by the save's own words
    (save,), recall = [t for t in turns if t.is_save], turns[-1]
    assert recall.chat != save.chat and recall.page in save.text


def _set_pages(name: str) -> set[str]:
    """The pages a question set of bench/ names (its ``pages`` column: paths joined by `` | `` or ``;``), less .md."""
    with (REPO / "bench" / name).open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        return {page.removesuffix(".md") for row in rows for page in re.split(r"\s*[|;]\s*", row["pages"]) if page}


@pytest.mark.parametrize("turns_file", list(HELD_OUT), ids=HELD_OUT_IDS)
def test_a_held_out_file_asks_of_pages_no_earlier_turns_file_or_answer_set_used(turns_file: Path) -> None:
    """Held out: no page an earlier turns file, bench/answers_set.tsv or bench/followups_set.tsv asks of is asked
    again (the answer sets name whole paths; a turns file's page piece is used in or holding the path); a file
    after the fifth also keeps apart from bench/followups_platforms.tsv, written after the fifth on one of its
    pages."""
    names = ["browser_turns.tsv", "browser_turns_more.tsv", "browser_turns_third.tsv", "browser_turns_tables.tsv"]
    held = list(HELD_OUT)
    names += [before.name for before in held[: held.index(turns_file)]]
    sets = ["answers_set.tsv", "followups_set.tsv"]
    if held.index(turns_file) > held.index(FIFTH_FILE):
        sets.append("followups_platforms.tsv")
    earlier = {t.page for name in names for t in load_turns(REPO / "bench" / name)}.union(
        *(_set_pages(name) for name in sets)
    )
    asked = {t.page for t in load_turns(turns_file) if t.page and not t.unanswerable}
    assert asked and not {page for page in asked for used in earlier - {"", "-"} if used in page or page in used}


@pytest.mark.parametrize("turns_file", [THIRD_FILE, *HELD_OUT], ids=["third", *HELD_OUT_IDS])
def test_each_fact_of_a_held_out_file_is_on_the_one_page_it_names(turns_file: Path) -> None:
    """Written by reading pages: each vault turn's page piece names one page of the eval vault, which holds every
    one of its fact patterns; the recall names the note the save writes, whose words hold its fact."""
    vault = require_eval_vault()
    turns = load_turns(turns_file)
    saved = " ".join(t.text for t in turns if t.is_save)
    pages = list(vault.rglob("*.md"))
    for turn in turns:
        if turn.is_save or turn.unanswerable:
            continue
        if turn.page in saved:
            assert turn.fact_right(saved), turn.n
            continue
        named = [p for p in pages if turn.page in p.relative_to(vault).as_posix()]
        assert len(named) == 1, (turn.n, named)
        assert turn.fact_right(named[0].read_text(encoding="utf-8")), (turn.n, named[0])


@pytest.mark.parametrize(
    ("drawn", "shape"),
    [
        ("Estos se almacenan en el [#Historial de versiones].", "[#"),
        ("[[Komut Paleti]] Yerleşik Eklentiler|eklentisi], herhangi bir komutu", "|…]"),
        ("La Ley de la Inercia es una de las [Tres leyes del movimiento ]", "[…]"),
        ("Kasandan (alıntı):\ndein Handy) empfangen Aktualisierungen vom primären Gerät. [1]", "…)"),
        ("Sekundäre Geräte (z. [1]", "(…"),
        ("see Page]] now", "]]"),
    ],
)
def test_a_cut_link_or_parenthesis_is_flagged(drawn: str, shape: str) -> None:
    assert shape in markup_shown(drawn)


def test_a_whole_parenthesis_a_list_marker_and_a_smiley_are_not_flagged() -> None:
    assert markup_shown("Kasandan (alıntı):\n1) Ayarlar (sol altta) [2]\nThanks :)") == []
