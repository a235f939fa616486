"""Research end to end over real HTTP on loopback: a stand-in SearXNG returns URLs of a loopback site serving real
HTML (eval vault pages in English, German and Turkish, an off-topic page, and every page research must refuse);
the record lists each correctly and every passage is verbatim in its page."""

from __future__ import annotations

import json

import frontmatter
import lxml.html
import pytest

from sentinel.embed.onnx import OnnxEmbedder
from sentinel.gates.verbatim import normalise
from sentinel.paths import source_record_path
from sentinel.research.backends import SearxngBackend
from sentinel.research.record import RECORD_TYPE, recorded_passages
from sentinel.research.run import report_text, research
from tests.support.research import QUESTION, MakeVault
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.web_site import PDF_TEXT, LoopbackSite, SitePage, searxng_standin

REFUSED = {
    "/missing": "HTTP 404",
    "/loop-a": "redirect loop",
    "/huge.html": "over the size cap (200000 bytes; it declares 400546)",
    "/huge-unannounced.html": "over the size cap (200000 bytes)",
    "/image.png": "not text (content type image/png)",
    "/private/page.html": "disallowed by robots.txt",
    "/slow.html": "timeout after 3 s",
}


def visible(page: SitePage) -> str:
    return normalise(lxml.html.fromstring(page.html).text_content())


def results(site: LoopbackSite, pages: int = 4, refused: bool = True) -> list[tuple[str, str]]:
    found = [(site.page_url(n), f"result {n}") for n in range(pages)]
    return found + ([(site.url + path, path) for path in REFUSED] if refused else [])


def test_the_record_lists_every_page_with_what_it_gave_or_why_not(
    research_vault: MakeVault, site: LoopbackSite, site_pages: list[SitePage], e5: OnnxEmbedder
) -> None:
    settings = research_vault()
    with searxng_standin(results(site)) as search:
        report = research(QUESTION, settings, embedder=e5, backend=SearxngBackend(search.url, 5))
    assert search.requests[0].path.startswith("/search?q=How+do+I+restore") and "format=json" in search.requests[0].path
    assert report.relpath == source_record_path(QUESTION, settings) and report.relpath.startswith("sources/")
    record = frontmatter.loads((settings.vault / report.relpath).read_text(encoding="utf-8"))
    assert record.metadata["type"] == RECORD_TYPE and record.metadata["question"] == QUESTION
    assert record.metadata["urls"] == [site.page_url(n) for n in range(3)]
    assert record.metadata["asked"][0]["backend"] == "searxng" and record.metadata["asked"][0]["query"] == QUESTION
    # Every refused page is listed with its reason; the off-topic page too.
    not_used = record.content.split("### Not used", 1)[1]
    for path, reason in REFUSED.items():
        assert f"- <{site.url}{path}>: {reason}" in not_used, path
    assert f"- <{site.page_url(3)}>: no passage relevant to the question" in not_used
    # Every passage is verbatim in the page it is listed under, and each answering page gave some.
    passages = recorded_passages(record.content)
    by_page = {n: [text for url, text in passages if url == site.page_url(n)] for n in range(4)}
    assert all(by_page[n] for n in range(3)) and not by_page[3]
    for url, text in passages:
        page = site_pages[int(url.rsplit("/", 1)[1].removesuffix(".html"))]
        assert normalise(text) in visible(page), (url, text)
    assert "Fetched: " in record.content and "· sha256: " in record.content
    # The menu and the footer are boilerplate: never a passage.
    assert "All rights reserved" not in record.content and "About us" not in record.content
    assert "/private/page.html" not in site.requests  # robots.txt was read first, the page never asked for
    assert report.used == 3 and len(report.unusable) == len(REFUSED) + 1


def test_asking_again_appends_and_deletes_nothing(
    research_vault: MakeVault, site: LoopbackSite, e5: OnnxEmbedder
) -> None:
    settings = research_vault()
    with searxng_standin(results(site, pages=1, refused=False)) as search:
        first = research(QUESTION, settings, embedder=e5, backend=SearxngBackend(search.url, 5))
    path = settings.vault / first.relpath
    before = frontmatter.loads(path.read_text(encoding="utf-8")).content
    with searxng_standin(results(site, pages=2, refused=False)) as search:
        # the same words spaced otherwise (a question's case changes its embedding, not its record)
        second = research(f"  {QUESTION}\n", settings, embedder=e5, backend=SearxngBackend(search.url, 5))
    assert second.relpath == first.relpath and first.created and not second.created
    assert source_record_path(QUESTION.upper(), settings) == first.relpath
    after = frontmatter.loads(path.read_text(encoding="utf-8"))
    assert after.content.startswith(before)  # the first run's text stays as it was
    assert after.content.count("## Asked ") == 2
    assert second.repeated == first.added and second.added > 0  # the English page's passages are not repeated
    assert len(recorded_passages(after.content)) == first.added + second.added
    assert after.metadata["urls"] == [site.page_url(0), site.page_url(1)]
    assert len(after.metadata["asked"]) == 2


def test_a_result_that_redirects_to_a_page_already_used_adds_nothing_twice(
    research_vault: MakeVault, site: LoopbackSite, e5: OnnxEmbedder
) -> None:
    """/moved redirects to page 0, which the run already took: its passages are written once, the result is
    listed as not used with why, and every count (the report's, the record's) says the same pages."""
    settings = research_vault()
    found = [(site.page_url(0), "result 0"), (site.url + "/moved", "moved"), (site.page_url(1), "result 1")]
    with searxng_standin(found) as search:
        report = research(QUESTION, settings, embedder=e5, backend=SearxngBackend(search.url, 5))
    record = frontmatter.loads((settings.vault / report.relpath).read_text(encoding="utf-8"))
    passages = recorded_passages(record.content)
    assert len(passages) == len(set(passages)) == report.added
    assert f"- <{site.url}/moved>: the same page as <{site.page_url(0)}>, already used in this run" in record.content
    assert report.used == report.added_pages == 2 and len(report.unusable) == 1 and report.results == 3
    assert f"{report.added} new passages from 2 pages; 1 pages not used." in record.content
    said = report_text(report)
    assert f"{report.added} new passages from 2 pages (2 of 3 results gave passages, 1 were not used)" in said


def _inventing_model(invented: str) -> ScriptedProvider:
    """Says the first candidate answers (copied exactly), and 'quotes' a sentence no page holds."""

    def answer(request: ChatRequest) -> str:
        prompt = str(request.messages[-1]["content"])
        first = prompt.split("[1] ", 1)[1].split("\n\n", 1)[0]
        quotes = [{"number": 1, "quote": first}, {"number": 2, "quote": invented}]
        return json.dumps({"answers": quotes})

    return ScriptedProvider([answer])


def test_a_passage_the_model_invents_is_dropped_and_never_written(
    research_vault: MakeVault, site: LoopbackSite, site_pages: list[SitePage], e5: OnnxEmbedder
) -> None:
    settings = research_vault()
    invented = "File recovery uploads every snapshot to the cloud and keeps it forever, at no cost."
    model = _inventing_model(invented)
    with searxng_standin(results(site, pages=1, refused=False)) as search:
        report = research(QUESTION, settings, embedder=e5, backend=SearxngBackend(search.url, 5), provider=model)
    assert model.pending == 0  # asked once, for the one page
    text = (settings.vault / report.relpath).read_text(encoding="utf-8")
    assert "uploads every snapshot" not in text
    passages = recorded_passages(frontmatter.loads(text).content)
    assert len(passages) == 1 and normalise(passages[0][1]) in visible(site_pages[0])
    assert f"1 passages the model gave for <{site.page_url(0)}> were not found verbatim" in text


def test_a_model_that_rewords_a_passage_gets_nothing_written(
    research_vault: MakeVault, site: LoopbackSite, e5: OnnxEmbedder
) -> None:
    settings = research_vault()

    def rewording(request: ChatRequest) -> str:
        first = str(request.messages[-1]["content"]).split("[1] ", 1)[1].split("\n\n", 1)[0]
        words = first.split()  # its own words, the first two swapped: reworded, nothing invented
        return json.dumps({"answers": [{"number": 1, "quote": " ".join([words[1], words[0], *words[2:]])}]})

    with searxng_standin(results(site, pages=1, refused=False)) as search:
        report = research(
            QUESTION,
            settings,
            embedder=e5,
            backend=SearxngBackend(search.url, 5),
            provider=ScriptedProvider([rewording]),
        )
    text = (settings.vault / report.relpath).read_text(encoding="utf-8")
    assert recorded_passages(frontmatter.loads(text).content) == []
    assert f"- <{site.page_url(0)}>: no passage relevant to the question" in text


@pytest.mark.parametrize("question", ["", "   ", "x" * 1001])
def test_a_question_research_cannot_ask_is_refused(research_vault: MakeVault, question: str) -> None:
    from sentinel.research.target import ResearchRefused

    with pytest.raises(ResearchRefused, match="question"):
        research(question, research_vault())


@pytest.mark.parametrize("path", ["/paper.pdf", "/notes.txt"])
def test_a_pdf_or_plain_text_gives_passages_from_its_text(
    research_vault: MakeVault, site: LoopbackSite, e5: OnnxEmbedder, path: str
) -> None:
    settings = research_vault(min_text_chars=100)
    with searxng_standin([(site.url + path, "paper")]) as search:
        report = research(QUESTION, settings, embedder=e5, backend=SearxngBackend(search.url, 5))
    record = frontmatter.loads((settings.vault / report.relpath).read_text(encoding="utf-8"))
    passages = recorded_passages(record.content)
    assert passages and all(url == site.url + path for url, _ in passages)
    for _, text in passages:
        assert normalise(text) in normalise(PDF_TEXT)


def test_result_urls_on_private_addresses_are_refused_by_default(
    research_vault: MakeVault, site: LoopbackSite, e5: OnnxEmbedder
) -> None:
    settings = research_vault(allow_private_addresses=False)
    with searxng_standin([(site.page_url(0), "on loopback")]) as search:
        report = research(QUESTION, settings, embedder=e5, backend=SearxngBackend(search.url, 5))
    assert [(u.url, u.reason) for u in report.unusable] == [
        (site.page_url(0), "refused: 127.0.0.1 is a private or loopback address")
    ]
    assert site.requests == []  # not even robots.txt was asked for
