"""The evidence packet (``answer.packet``): which chunks of which pages the model reads.

Here (tests/tools) so the mutation harness reaches it.
"""

from __future__ import annotations

import pytest

from sentinel.answer.packet import Passage, asks_how_to, build_packet, narrowed
from sentinel.answer.quotes import best_sentences
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.gates.support import content_words
from sentinel.search.hits import list_run, page_chunks
from tests.support.tool_context import MakeContext, embedded

REFUNDS = {
    "notes/Refund policy.md": "# Refund policy\n\nWe offer a full refund within 7 days of purchase, no questions "
    "asked, for these services:\n\n- Sync\n- Publish\n\n## Frequently asked questions\n\n**What happens when I get "
    "a refund for Sync?**\nA refund for Sync deletes your remote vaults, and a refund for Publish deletes your "
    "sites. Your local data stays.\n\n**What happens if I miss a payment for Sync?**\nNo, your data is kept for 30 "
    "days in such cases. After that your remote vault for Sync is deleted.\n",
    "notes/Sync plans.md": "# Sync plans\n\nSync keeps the version history of a note for 1 month on the Standard "
    "plan and for 12 months on the Plus plan.\n",
}


def test_a_number_question_also_gets_the_pages_chunk_whose_numbers_hold_its_words(make_ctx: MakeContext) -> None:
    """Seen in the browser (stops 43-47, row 7): "Innerhalb welcher Frist bekomme ich eine Erstattung für Obsidian
    Sync?" got the refund page's FAQ chunk (the search's first, "… 30 Tage lang aufbewahrt" for a missed payment)
    and never the page's opening ("innerhalb von 7 Tagen … Erstattung"): one chunk a page. The chunk the search
    chose stays, after the one whose number sentences hold the question's words, and only one is added."""
    ctx = make_ctx(REFUNDS)
    question = "How long do I have to get a refund for Sync?"
    searched = build_packet(ctx, "What happens when I get a refund for Sync?", passages=4, budget_tokens=1200)
    faq = next(p for p in searched.passages if p.path == "notes/Refund policy.md")
    assert "30 days" in faq.text and "within 7 days" not in faq.text  # the search's chunk for this page
    packet = build_packet(ctx, question, passages=4, budget_tokens=1200)
    refund = [p for p in packet.passages if p.path == "notes/Refund policy.md"]
    assert [("within 7 days" in p.text, "30 days" in p.text) for p in refund] == [(True, False), (False, True)]
    assert len(packet.passages) <= len(searched.passages) + 1


def test_a_question_asking_no_number_takes_one_chunk_a_page(make_ctx: MakeContext) -> None:
    packet = build_packet(
        make_ctx(REFUNDS), "What happens when I get a refund for Sync?", passages=4, budget_tokens=1200
    )
    paths = [p.path for p in packet.passages]
    assert len(paths) == len(set(paths))


STEPS = {
    "notes/History.md": "# History\n\nSync keeps the history of a note for 1 month.\n\n## Restore\n\n1. Open the "
    "Sync history.\n2. Choose how long Sync should keep it.\n",
}


def test_numbered_steps_are_no_number_chunk(make_ctx: MakeContext) -> None:
    """Seen on the version history question: the page's steps ("1. Open **Settings** … 3. … **Sync**") were added
    before the chunk holding "1 month", their markers taken for numbers: the chunk giving the number leads."""
    packet = build_packet(make_ctx(STEPS), "How long does Sync keep the history?", passages=4, budget_tokens=1200)
    assert packet.passages[0].text.startswith("Sync keeps the history"), packet.passages


PALETTE = {
    "notes/Command palette.md": "# Command palette\n\nThe command palette lets you run any command from your "
    "keyboard.\n\n## Pinned commands\n\nYou can pin frequently used commands at the top of the Command palette to "
    "quickly access them without having to type their name.\n\n### Pin a command\n\n1. Open **Settings**.\n2. In "
    "the sidebar, click **Command palette** under **Plugin options**.\n3. Next to **New pinned command**, click "
    "**Select a command**.\n4. Press `Enter`.\n",
}


def test_a_how_to_question_also_gets_the_pages_numbered_steps(make_ctx: MakeContext) -> None:
    """Seen in the browser (stop 49, bench/browser_turns_more.tsv row 8): "How do I pin a command so it stays at
    the top of the command palette?" got the section's opening ("You can pin frequently used commands at the
    top …") and never its steps, one chunk a page: the answer said that it can be done, not how. The steps'
    chunk is placed before the searched one, which stays."""
    question = "How do I pin a command so it stays at the top of the command palette?"
    packet = build_packet(make_ctx(PALETTE), question, passages=4, budget_tokens=1200)
    palette = [p for p in packet.passages if p.path == "notes/Command palette.md"]
    assert ["Select a command" in p.text for p in palette] == [True, False]
    assert "pin frequently used commands" in palette[1].text


def test_a_question_not_asking_how_takes_no_steps(make_ctx: MakeContext) -> None:
    question = "Can I pin a command so it stays at the top of the command palette?"
    packet = build_packet(make_ctx(PALETTE), question, passages=4, budget_tokens=1200)
    assert not any("Select a command" in p.text for p in packet.passages)


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How do I pin a command?", True),
        ("how to install a theme", True),
        ("Wie öffne ich die Befehlspalette?", True),
        ("Wie kann man ein Plugin installieren?", True),
        ("¿Cómo abro una barra lateral contraída?", True),
        ("Como fijo un comando", True),
        ("Komut paletini nasıl açarım?", True),
        ("Can I pin a command?", False),
        ("How long does Sync keep the version history?", False),
        ("Wie lange werden die Sicherungskopien aufbewahrt?", False),
        ("¿Con qué nombre crea Obsidian la nota diaria?", False),
        ("Guarda las notas como archivos Markdown", False),
        # a clause that opens unaccented, the steps asked for by name, "nasıl" typed without its dotless i
        # (bench/browser_turns_eighth.tsv row 3: the Google Takeout steps were left out)
        ("tengo años de notas en google keep, como las paso a obsidian? q pasos tengo q seguir", True),
        ("¿Qué pasos tengo que seguir para importar?", True),
        ("What steps do I follow to import from Keep?", True),
        ("Welche Schritte brauche ich für den Import?", True),
        ("komut paletini nasil acarim", True),
        ("Lo uso como diario personal", False),
    ],
)
def test_which_questions_ask_how_to(question: str, asks: bool) -> None:
    assert asks_how_to(question) is asks


# A tier table longer than a narrowed passage: the row asked about is far below the header.
TIER_HEADER = "| Perk                 | Seedling | Gardener | Patron |"
TIER_SEPARATOR = "| -------------------- | -------- | -------- | ------ |"
FEE_ROW = "| Yearly fee (EUR)     | 10       | 20       | 40     |"
TIERS = (
    "# Garden club\n\nThe garden club has three membership levels, each with its own perks.\n\n"
    f"{TIER_HEADER}\n{TIER_SEPARATOR}\n"
    + "".join(f"| Seed packet {n:<8} | ✓        | ✓        | ✓      |\n" for n in range(1, 9))
    + f"{FEE_ROW}\n| Garden visits        | 1        | 2        | 4      |\n\n"
    "Members meet on the first Saturday of each month.\n"
)


def test_a_narrowed_passage_keeps_a_table_rows_header() -> None:
    """A narrowed passage kept the fee row and cut away the header it sat under, so its "40" was the fee of no
    tier a reader (or the model) could name. The header and separator come with it, the rows left out between
    marked by a "| … |" row, and the quote drawn from it is the small table: header, separator, the row."""
    question = "What is the yearly fee of the Patron tier?"
    text = narrowed(TIERS, set(content_words(question)), 300)
    lines = text.splitlines()
    assert FEE_ROW in lines, text
    assert lines.index(TIER_HEADER) + 1 == lines.index(TIER_SEPARATOR) < lines.index(FEE_ROW), text
    assert len(text) <= 300 + 2 * len("…\n")
    passage = Passage(1, "notes/Garden club.md", "Garden club", "", "", text)
    assert best_sentences(passage, question, "Record").splitlines() == [TIER_HEADER, TIER_SEPARATOR, FEE_ROW]


def test_a_narrowed_passage_never_ends_on_a_header_without_its_rows() -> None:
    """The header names the perks asked about, and fits after the opening where no row does: a header with no row
    under it tells nothing, so the passage ends before it."""
    text = narrowed(TIERS, set(content_words("Which perks does each level of the garden club give?")), 200)
    assert text.startswith("# Garden club") and text.endswith("own perks.…"), text


# Prose whose every sentence holds a question word, then a lead-in announcing a table whose answering row is the
# second (as on the spent turns' _more row 2: "Nachfolgend ein Vergleich … Tarif:", "Maximale Dateigröße | 5 MB").
PLAN_HEADER = "|                          | Sync Standard | Sync Plus |"
SIZE_ROW = "| Maximale Dateigröße      | 5 MB          | 200 MB    |"
PLANS = (
    "Um Notizen mit Sync zu synchronisieren, brauchst du ein Sync-Abo. Ein Sync-Abo kaufst du im Konto. Preise "
    "für Sync stehen auf der Sync-Seite.\n\nNachfolgend ein Vergleich zwischen dem Standard- und dem Plus-Tarif:\n\n"
    f"{PLAN_HEADER}\n| ------------------------ | ------------- | --------- |\n"
    "| Synchronisierte Vaults   | 1             | 10        |\n"
    f"{SIZE_ROW}\n| Gesamtspeicher           | 1 GB          | 10 GB     |\n| Geräte                   | unbegrenzt    "
    "| unbegrenzt |\n"
)


def test_a_lead_in_and_its_table_are_narrowed_with_the_row_that_answers() -> None:
    """The window holding most question words (prose repeating "Sync") ended at the table's first row: the lead-in
    and the header were kept, the row asked for cut. The row that answers (read by stems, as a quote reads it:
    "Dateigröße" holds "Datei") replaces the window's last row, after a row "| … |"."""
    question = "Wie groß darf eine einzelne Datei bei Sync Standard sein?"
    text = narrowed(PLANS, set(content_words(question)), 420)
    lines = text.splitlines()
    assert "Nachfolgend ein Vergleich zwischen dem Standard- und dem Plus-Tarif:" in lines, text
    assert SIZE_ROW in lines and lines.index(PLAN_HEADER) < lines.index(SIZE_ROW), text
    assert "Synchronisierte Vaults" not in text, text
    passage = Passage(1, "notes/Sync plans.md", "Sync plans", "", "", text)
    assert SIZE_ROW in best_sentences(passage, question, "Record").splitlines(), text


SITES = {
    "notes/Manage sites.md": "# Manage sites\n\nA Publish site is reached at its Publish address or at a custom "
    "domain. Each option of a site has a type. You can move a Publish site to a custom domain at any time.\n\n"
    "## Create a site\n\n1. Select **Publish changes** in the ribbon.\n2. Enter the site's ID.\n3. Select "
    "**Create**.\n\n## General\n\n"
    "| Option        | Type   | Description                     |\n"
    "| ------------- | ------ | ------------------------------- |\n"
    "| Site name     | Input  | The public name of your site.   |\n"
    "| Custom domain | Button | Opens the domain settings.      |\n"
    "| Logo          | Input  | The image shown as your banner. |\n",
    "notes/Custom domains.md": "# Custom domains\n\nSet up a custom domain for your Publish site with CloudFlare.\n",
}


def test_a_pages_table_row_holding_more_of_the_question_comes_with_its_chunk(make_ctx: MakeContext) -> None:
    """Seen in the browser's tables turns (rows 5, 6): the search chose a chunk of a page whose table, in another
    chunk, has the row that answers ("Custom domain | Button" for "what type of option"): one chunk a page. The
    table's chunk comes before the chosen one, which stays."""
    ctx = make_ctx(SITES)
    question = "What type of option is the custom domain in Publish?"
    packet = build_packet(ctx, question, passages=4, budget_tokens=1200)
    manage = [p for p in packet.passages if p.path == "notes/Manage sites.md"]
    assert ["| Custom domain | Button |" in p.text for p in manage] == [True, False], [p.text for p in manage]
    alone = build_packet(ctx, "Where is a Publish site reached?", passages=4, budget_tokens=1200)
    assert not any("| Custom domain |" in p.text for p in alone.passages)  # no row holds more than the opening


# A procedure of nine steps (cut one entry a unit: ``vault.entries``) whose last step names the thing asked about,
# beside a page that names it in prose (the browser, stop 51: "wie krieg ich am pc die neuen beta builds?" read
# "8. Aktiviere unter **App** die Option **Insider-Builds erhalten**." alone, then a Catalyst licence's prose).
EARLY = {
    "notes/Early access.md": "# Early access\n\nGet new versions of the app before everyone else.\n\n## Turn on "
    "early access on desktop\n\nTo get early access versions as soon as they are out, follow these steps:\n\n"
    "1. Open **Settings** from the ribbon.\n2. In the sidebar, select **General**.\n3. Under **Account**, select "
    "**Log in** now.\n4. Enter your email address under **Email**.\n5. Enter your password under **Password**.\n"
    "6. Once logged in, go back to **Settings**.\n7. In the sidebar, select **General** again.\n8. Under "
    "**App**, find the section named **Versions**.\n9. Turn on the toggle **Receive insider builds** there.\n\n"
    "## Report a problem\n\n- Post it in the forum.\n- Post it on the chat server.\n",
    "notes/Supporter license.md": "# Supporter license\n\nA supporter license is a one-time payment that thanks "
    "the team. With it you can receive insider builds, a badge on the chat server and our gratitude. Buy it "
    "from your account page.\n",
}


@pytest.mark.parametrize(
    "question",
    [
        "How do I receive the insider builds on my computer?",
        "Where do I turn on receiving insider builds?",  # asks no "how": a step is a step whatever the wording
    ],
)
def test_a_step_found_alone_is_read_with_the_steps_before_it(
    make_ctx: MakeContext, e5: OnnxEmbedder, question: str
) -> None:
    """The passage holding the last step holds steps 1-8 before it, in page order, and no step twice."""
    packet = build_packet(embedded(make_ctx(EARLY), e5), question, passages=4, budget_tokens=1200)
    steps = next(p for p in packet.passages if "Receive insider builds" in p.text)
    assert steps.path == "notes/Early access.md" and steps.trail.endswith("Turn on early access on desktop")
    assert steps.text.startswith("1. Open **Settings**"), steps.text
    assert [line[:2] for line in steps.text.splitlines()] == [f"{n}." for n in range(1, 10)], steps.text
    assert sum("Receive insider builds" in p.text for p in packet.passages) == 1


def test_only_a_numbered_lists_entry_is_read_with_its_list(make_ctx: MakeContext) -> None:
    """Only a numbered list is a procedure: a bulleted list's items (and a conversation's turns, a table's rows)
    are read one by one, and a window is its own text; the step is read with its eight siblings, not with the
    bulleted list under the next heading."""
    bullets = "# Bullets\n\n" + "".join(f"- Bullet item number {n} here\n" for n in range(9))
    ctx = make_ctx({**EARLY, "notes/Bullets.md": bullets})

    def read(path: str, starts: str) -> tuple[str, str]:
        trail, _, text = next(c for c in page_chunks(ctx.reader(), path) if c[2].startswith(starts))
        return text, list_run(ctx.reader(), path, trail, text)

    item, run = read("notes/Bullets.md", "- Bullet item number 4")
    assert run == item == "- Bullet item number 4 here"
    opening, run = read("notes/Early access.md", "Get new versions")
    assert run == opening
    step, run = read("notes/Early access.md", "5. Enter your password")
    assert run.startswith("1. Open **Settings**") and run.endswith("**Receive insider builds** there.") and step in run
