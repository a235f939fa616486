"""A real web site on loopback for research tests and the bench: real HTML built from eval vault pages, and
every kind of page research must refuse, plus a stand-in search backend speaking SearXNG's JSON format.

    with LoopbackSite(pages) as site, searxng_standin(site.urls) as search_url: ...

Routes: ``/page/<n>.html`` (the HTML of page n), ``/missing`` (404), ``/loop-a`` <-> ``/loop-b`` (a redirect
loop), ``/moved`` (one redirect to page 0), ``/huge.html`` (over the size cap the tests set;
``/huge-unannounced.html`` the same without a Content-Length),
``/image.png``
(binary), ``/private/page.html`` (disallowed by robots.txt), ``/slow.html`` (answers after ``slow_s``),
``/paper.pdf`` (a real PDF whose text is ``PDF_TEXT``), ``/notes.txt`` (that text as plain text).
"""

from __future__ import annotations

import html
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pyromark

from sentinel.vault.links import text_without_link_markup
from sentinel.vault.parse import split_frontmatter
from tests.support.http_stub import HttpStub, RecordedRequest

ROBOTS = "User-agent: *\nDisallow: /private/\n"
PDF_TEXT = (
    "File recovery saves complete snapshots of your notes at regular intervals, so that an earlier version can be "
    "restored. To restore a snapshot, open Settings, select File recovery under Core plugins, and choose View. "
    "Select the file and the snapshot you want to recover, then select Restore."
)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


@dataclass(frozen=True)
class SitePage:
    title: str
    html: str  # the page as served
    lang: str


def page_from_markdown(path: Path, lang: str) -> SitePage:
    """An eval vault page as a web page: its markdown rendered by pyromark, inside a page with a menu and a
    footer (boilerplate the extractor must leave out)."""
    body = text_without_link_markup(split_frontmatter(path.read_text(encoding="utf-8"))[1])
    title = path.stem
    article = pyromark.html(body)
    page = (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
        '<body><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav>'
        f"<main><article><h1>{html.escape(title)}</h1>{article}</article></main>"
        "<footer>Copyright the loopback site. All rights reserved. Imprint and privacy.</footer></body></html>"
    )
    return SitePage(title, page, lang)


def pdf_of(text: str) -> bytes:
    """A one-page PDF showing ``text`` in Helvetica, wrapped at 70 characters (Latin-1 text only)."""
    lines = textwrap.wrap(text, 70)
    escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
    ops = "BT /F1 11 Tf 14 TL 50 780 Td " + " ".join(f"({line}) Tj T*" for line in escaped) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Resources << /Font << /F1 4 0 R >> >> "
        "/Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(ops)} >>\nstream\n{ops}\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # the slow page outlives the client that gave up on it

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client gone away (timeout, size cap) is what those tests expect


class LoopbackSite:
    def __init__(self, pages: list[SitePage], *, huge_bytes: int = 400_000, slow_s: float = 3.0) -> None:
        self.pages = pages
        self.requests: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def _send(
                self, status: int, body: bytes, kind: str, headers: dict[str, str] | None = None, length: bool = True
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                if length:
                    self.send_header("Content-Length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = urlsplit(self.path).path
                site.requests.append(path)
                html_type = "text/html; charset=utf-8"
                if path == "/robots.txt":
                    self._send(200, ROBOTS.encode(), "text/plain")
                elif path.startswith("/page/"):
                    number = int(path.removeprefix("/page/").removesuffix(".html"))
                    self._send(200, site.pages[number].html.encode(), html_type)
                elif path in ("/loop-a", "/loop-b"):
                    other = "/loop-b" if path == "/loop-a" else "/loop-a"
                    self._send(302, b"", "text/plain", {"Location": other})
                elif path == "/moved":
                    self._send(301, b"", "text/plain", {"Location": "/page/0.html"})
                elif path in ("/huge.html", "/huge-unannounced.html"):
                    filler = "<p>" + "filler words " * 40 + "</p>"
                    body = ("<html><body>" + filler * (huge_bytes // len(filler) + 1) + "</body></html>").encode()
                    self._send(200, body, html_type, length=path == "/huge.html")
                elif path == "/notes.txt":  # plain text, under a charset name nobody knows
                    self._send(200, PDF_TEXT.encode(), "text/plain; charset=x-unheard-of")
                elif path == "/paper.pdf":
                    self._send(200, pdf_of(PDF_TEXT), "application/pdf")
                elif path == "/image.png":
                    self._send(200, PNG, "image/png")
                elif path == "/private/page.html":
                    self._send(200, site.pages[0].html.encode(), html_type)
                elif path == "/slow.html":
                    time.sleep(slow_s)
                    self._send(200, site.pages[0].html.encode(), html_type)
                else:
                    self._send(404, b"<html><body>Not found</body></html>", html_type)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def page_url(self, number: int) -> str:
        return f"{self.url}/page/{number}.html"

    def __enter__(self) -> LoopbackSite:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def searxng_answer(results: list[tuple[str, str]]) -> Callable[[RecordedRequest], tuple[int, Any]]:
    """SearXNG's JSON answer (``/search?q=...&format=json``) listing ``(url, title)`` results; a request without
    ``format=json`` gets SearXNG's 403, as a SearXNG without the json format enabled answers."""

    def respond(request: RecordedRequest) -> tuple[int, Any]:
        query = parse_qs(urlsplit(request.path).query)
        if query.get("format") != ["json"] or not urlsplit(request.path).path.endswith("/search"):
            return 403, {"error": "format not allowed"}
        rows = [{"url": url, "title": title, "content": "", "engine": "loopback"} for url, title in results]
        return 200, {"query": query.get("q", [""])[0], "number_of_results": len(rows), "results": rows}

    return respond


@contextmanager
def searxng_standin(results: list[tuple[str, str]]) -> Iterator[HttpStub]:
    with HttpStub(searxng_answer(results)) as stub:
        yield stub
