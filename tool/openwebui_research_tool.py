"""
title: Sentinel research
author: Sentinel
description: Web research on request: the Searcher writes verified passages into the vault's sources folder.
version: 0.1.0
license: MIT
"""

# Loaded by Open WebUI, not by Sentinel: only the standard library, pydantic and httpx (both ship with Open WebUI).
# Registered by `sentinel openwebui setup` only when SENTINEL_OPENWEBUI__SEARCHER_URL names the Searcher; the
# method docstring is the description the model reads, on one line (Open WebUI sends it up to ':param').

import httpx
from pydantic import BaseModel, Field


class Tools:
    class Valves(BaseModel):
        api_url: str = Field("http://searcher:8002", description="The Searcher service root, as Open WebUI reaches it.")
        api_key: str = Field("", description="A write-scoped Sentinel API key (research writes a source record).")
        timeout_s: float = Field(600.0, description="Seconds one research may take (it fetches several pages).")

    def __init__(self) -> None:
        self.valves = self.Valves()

    async def research(self, question: str) -> str:
        """Research a question on the web, ONLY when the user asks for web research or asks to look something up online; the vault comes first, and an empty or silent vault is not a reason. Verified passages with their URLs are written to a record under sources/; read them afterwards with search rung='body'.
        :param question: the question, in the user's words
        """  # noqa: E501
        if not self.valves.api_key:
            return "[STOP] The research tool has no API key. Tell the user: an admin sets it in the tool's valves."
        url = self.valves.api_url.rstrip("/") + "/v1/research"
        try:
            async with httpx.AsyncClient(timeout=self.valves.timeout_s) as client:
                response = await client.post(
                    url, json={"question": question}, headers={"Authorization": f"Bearer {self.valves.api_key}"}
                )
        except httpx.HTTPError as exc:
            return f"[STOP] The Searcher at {url} could not be reached ({exc!r}). Tell the user; do not retry."
        if response.status_code == 200:
            try:
                return str(response.json()["text"])
            except (ValueError, KeyError, TypeError):
                return "[STOP] The Searcher answered without a text field. Tell the user."
        try:
            detail = str(response.json().get("detail", response.text))
        except ValueError:
            detail = response.text
        if response.status_code == 422:
            return f"[RETRY] The Searcher refused the question: {detail[:400]}"
        return f"[STOP] The Searcher failed ({response.status_code}): {detail[:400]}"
