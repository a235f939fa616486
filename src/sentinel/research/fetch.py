"""Fetching a result page politely and within bounds: robots.txt honoured, size and time capped, redirects
bounded, content types checked.

Every page that cannot be used raises ``PageUnusable`` with the reason the record lists: ``HTTP 404``,
``disallowed by robots.txt``, ``timeout after 10 s``, ``over the size cap (3000000 bytes)``, ``not text
(content type image/png)``, ``redirect loop``, ``more than 5 redirects``, ``refused: 10.0.0.5 is a private or
loopback address`` (unless ``research.allow_private_addresses``). robots.txt is read with the standard
library's parser, once per origin per run; one that cannot be fetched allows everything, as crawlers treat it,
except a 401/403, which disallows everything (as ``urllib.robotparser`` does).
"""

from __future__ import annotations

import hashlib
import ipaddress
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from sentinel.settings import ResearchSettings

TEXT_TYPES = ("text/html", "application/xhtml+xml", "text/plain", "application/pdf")
_ROBOTS_BYTES = 500_000


class PageUnusable(Exception):
    """The page cannot be used; ``reason`` is what the record lists."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Fetched:
    url: str  # after redirects
    content_type: str  # the media type, lower-case, no parameters
    charset: str  # from the Content-Type header, "" when it names none
    body: bytes
    fetched_at: str  # ISO 8601, UTC, seconds
    sha256: str  # of ``body``
    seconds: float


def _private_address(url: str) -> str:
    """The address ``url``'s host resolves to when it is loopback, private, link-local or reserved, else "".

    A search result is anyone's URL: without this a result could make the Searcher read the stack's own services
    (the tool API, Redis, a cloud metadata address) into a record."""
    host = urlsplit(url).hostname or ""
    try:
        found = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return ""  # unresolvable: the fetch itself fails and says so
    for address in sorted(found):
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or ip.is_multicast:
            return address
    return ""


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


class Fetcher:
    """Fetches pages for one research run (robots.txt cached per origin)."""

    def __init__(self, settings: ResearchSettings) -> None:
        self.settings = settings
        self.client = httpx.Client(
            timeout=settings.fetch_timeout_s, headers={"User-Agent": settings.user_agent}, follow_redirects=False
        )
        self._robots: dict[str, RobotFileParser] = {}

    def close(self) -> None:
        self.client.close()

    def _robots_for(self, url: str) -> RobotFileParser:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._robots:
            parser = RobotFileParser()
            try:
                response = self.client.get(origin + "/robots.txt", follow_redirects=True)  # http -> https
                status, text = response.status_code, response.content[:_ROBOTS_BYTES].decode("utf-8", "replace")
            except httpx.HTTPError:
                status, text = 0, ""
            if status in (401, 403):
                parser.parse(["User-agent: *", "Disallow: /"])
            else:
                parser.parse(text.splitlines() if status == 200 else [])
            self._robots[origin] = parser
        return self._robots[origin]

    def fetch(self, url: str) -> Fetched:
        """The page at ``url`` (redirects followed within bounds), or ``PageUnusable``."""
        started = time.monotonic()
        seen = {url}
        for _ in range(self.settings.max_redirects + 1):
            if not self.settings.allow_private_addresses and (private := _private_address(url)):
                raise PageUnusable(f"refused: {private} is a private or loopback address")
            if not self._robots_for(url).can_fetch(self.settings.user_agent, url):
                raise PageUnusable("disallowed by robots.txt")
            try:
                fetched = self._one(url, started)
            except httpx.TimeoutException as err:
                raise PageUnusable(f"timeout after {self.settings.fetch_timeout_s:g} s") from err
            except httpx.HTTPError as err:
                raise PageUnusable(f"could not be fetched ({type(err).__name__})") from err
            if isinstance(fetched, Fetched):
                return fetched
            url = urljoin(url, fetched)
            if url in seen:
                raise PageUnusable("redirect loop")
            seen.add(url)
        raise PageUnusable(f"more than {self.settings.max_redirects} redirects")

    def _one(self, url: str, started: float) -> Fetched | str:
        """One request: the page, or the Location a redirect points to."""
        cap = self.settings.max_page_bytes
        with self.client.stream("GET", url) as response:
            if response.is_redirect:
                location = response.headers.get("location", "")
                if not location:
                    raise PageUnusable(f"HTTP {response.status_code} redirect without a Location")
                return location
            if response.status_code != 200:
                raise PageUnusable(f"HTTP {response.status_code}")
            header = response.headers.get("content-type", "")
            media = header.split(";")[0].strip().lower()
            if media not in TEXT_TYPES:
                raise PageUnusable(f"not text (content type {media or 'missing'})")
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise PageUnusable(f"over the size cap ({cap} bytes; it declares {declared})")
            body = bytearray()
            for piece in response.iter_bytes():
                body += piece
                if len(body) > cap:
                    raise PageUnusable(f"over the size cap ({cap} bytes)")
                if time.monotonic() - started > self.settings.fetch_timeout_s:
                    raise PageUnusable(f"timeout after {self.settings.fetch_timeout_s:g} s")
            charset = response.charset_encoding or ""
            data = bytes(body)
            return Fetched(
                str(response.url),
                media,
                charset,
                data,
                now_iso(),
                hashlib.sha256(data).hexdigest(),
                time.monotonic() - started,
            )
