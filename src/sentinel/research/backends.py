"""Search backends: one small interface, SearXNG's JSON API by default, the Brave Search API as the second.

``research.backend`` (env ``SENTINEL_RESEARCH__BACKEND``) picks one. SearXNG is self-hosted (its ``json`` format
must be enabled in its settings.yml); Brave needs a key, read from the environment variable that
``research.brave_key_env`` names, never from a setting's value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from sentinel.errors import Unavailable
from sentinel.settings import ResearchSettings


class BackendFailed(Unavailable, RuntimeError):
    """The search backend could not answer; the message names it and what to check."""


@dataclass(frozen=True)
class SearchHit:
    url: str
    title: str


class SearchBackend(Protocol):
    name: str

    def search(self, query: str, limit: int) -> list[SearchHit]:
        """The first ``limit`` results for ``query``, best first, each URL once; raises BackendFailed."""
        ...


def _get_json(url: str, params: dict[str, str], headers: dict[str, str], timeout: float, name: str) -> Any:
    try:
        response = httpx.get(url, params=params, headers=headers, timeout=timeout)
    except httpx.HTTPError as err:
        raise BackendFailed(f"the {name} backend at {url} could not be reached ({err!r}): is it running?") from err
    if response.status_code != 200:
        raise BackendFailed(
            f"the {name} backend at {url} answered HTTP {response.status_code}"
            + (": enable the json format under search.formats in SearXNG's settings.yml" if name == "searxng" else "")
        )
    try:
        return response.json()
    except ValueError as err:
        raise BackendFailed(f"the {name} backend at {url} answered something that is not JSON") from err


def _hits(rows: Any, limit: int) -> list[SearchHit]:
    hits: list[SearchHit] = []
    for row in rows if isinstance(rows, list) else []:
        url = row.get("url") if isinstance(row, dict) else None
        if isinstance(url, str) and url.startswith(("http://", "https://")) and url not in {h.url for h in hits}:
            hits.append(SearchHit(url, str(row.get("title") or "")))
    return hits[:limit]


class SearxngBackend:
    name = "searxng"

    def __init__(self, base_url: str, timeout_s: float) -> None:
        self.url = base_url.rstrip("/") + "/search"
        self.timeout_s = timeout_s

    def search(self, query: str, limit: int) -> list[SearchHit]:
        data = _get_json(self.url, {"q": query, "format": "json"}, {}, self.timeout_s, self.name)
        return _hits(data.get("results") if isinstance(data, dict) else None, limit)


class BraveBackend:
    name = "brave"

    def __init__(self, url: str, key: str, timeout_s: float) -> None:
        self.url, self.key, self.timeout_s = url, key, timeout_s

    def search(self, query: str, limit: int) -> list[SearchHit]:
        headers = {"Accept": "application/json", "X-Subscription-Token": self.key}
        data = _get_json(self.url, {"q": query, "count": str(min(limit, 20))}, headers, self.timeout_s, self.name)
        web = data.get("web") if isinstance(data, dict) else None
        return _hits(web.get("results") if isinstance(web, dict) else None, limit)


def backend_from_settings(settings: ResearchSettings) -> SearchBackend:
    """The backend ``research.backend`` names, or BackendFailed saying what it lacks."""
    if settings.backend == "brave":
        key = os.environ.get(settings.brave_key_env, "").strip()
        if not key:
            raise BackendFailed(
                f"the brave backend needs its API key in the environment variable {settings.brave_key_env} "
                "(SENTINEL_RESEARCH__BRAVE_KEY_ENV names that variable)"
            )
        return BraveBackend(settings.brave_url, key, settings.fetch_timeout_s)
    return SearxngBackend(settings.searxng_url, settings.fetch_timeout_s)
