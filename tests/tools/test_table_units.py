"""A pipe table longer than a window is cut between rows, each piece with its header and separator (issue 32;
h51d, docs/answers.md "Stop 51: four defects", 4, row 6): before, the es "Gestionar sitios" General table (6 rows,
too few to be entries, longer than a window) was cut by words and joined with spaces, so the passage search
returned had no line breaks nor header, and the "Dominio personalizado | Botón" row was split across two chunks: the
answer's packet then never read the row under its header (the browser's tables turns, row 6)."""

from __future__ import annotations

import pytest

from sentinel.answer.packet import build_packet
from sentinel.embed.onnx import OnnxEmbedder
from sentinel.index.db import open_index
from sentinel.index.sync import sync
from sentinel.search import embed_pending
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from tests.support.eval_data import copy_pages

pytestmark = pytest.mark.slow

SITES = "es/Obsidian Publish/Gestionar sitios.md"
PAGES = [SITES, "es/Obsidian Publish/Dominios personalizados.md", "es/Obsidian Publish/Personalizar tu sitio.md"]
HEADER = "| Opción                                       | Tipo   | Descripción"
ROW = "| Dominio personalizado                        | Botón  | [[Dominios personalizados]]"


def test_a_table_row_comes_back_whole_under_its_header(tmp_path, e5: OnnxEmbedder) -> None:  # type: ignore[no-untyped-def]
    copy_pages(PAGES, tmp_path / "vault")
    settings = Settings(vault=tmp_path / "vault", index_path=tmp_path / "index.db", _env_file=None)
    db = open_index(settings)
    try:
        sync(settings, db)
        embed_pending(db, e5)
        ctx = ToolContext(settings=settings, embedder=e5)
        try:
            question = "¿Qué tipo de opción es el dominio personalizado en Publish?"  # the browser's row 6
            packet = build_packet(ctx, question, passages=4, budget_tokens=1200)
        finally:
            ctx.close()
        rows = [p.text.splitlines() for p in packet.passages if p.path == SITES and ROW in p.text]
        assert rows, [(p.path, p.text) for p in packet.passages]
        assert rows[0][0].startswith(HEADER) and set(rows[0][1]) <= set("|- "), rows[0]
        assert any(line.startswith(ROW) for line in rows[0]), rows[0]
        # the chunk of the page that holds the row holds it whole, on its line, under the header
        stored = [text for (text,) in db.execute("SELECT text FROM chunks WHERE path = ?", (SITES,))]
        holding = [text for text in stored if "Dominio personalizado " in text]
        assert len(holding) == 1 and holding[0].startswith(HEADER), holding
        assert any(line.startswith(ROW) for line in holding[0].splitlines()), holding
    finally:
        db.close()
