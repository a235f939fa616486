"""A question the vault does not answer is told so, though a page shares a word with it (``packet.lets_in``).

Seen in the browser (stop 49, row 1): "¿Qué tiempo hará mañana en Madrid?" quoted Bases' ``today()`` because
both say "tiempo". A passage is evidence only when, besides a shared content word, its e5 cosine to the question
reaches ``packet.MIN_COSINE`` (chosen on bench/unanswered.py's choosing halves, docs/answers.md). The real e5
model embeds here; the index is a real small one.
"""

from __future__ import annotations

from sentinel.answer import Turn, answer_turn
from sentinel.answer.packet import MIN_COSINE, build_packet, lets_in, relevant
from sentinel.embed.onnx import OnnxEmbedder
from tests.support.scripted import ScriptedProvider, unreachable
from tests.support.tool_context import MakeContext, embedded

VAULT = {
    "es/Funciones.md": "# Funciones\n\nLa función `today()` devuelve la fecha de hoy. La porción de tiempo de una "
    "fecha se puede quitar con `date()`, y dos fechas se comparan con los operadores habituales.\n",
    "es/Historial de versiones.md": "# Historial de versiones\n\nObsidian Sync guarda el historial de versiones de "
    "tus notas durante un tiempo que depende de tu plan: un mes en el plan Standard y doce meses en el plan Plus.\n",
}
UNANSWERED = "¿Cuántos años tiene mi abuela y cuánto tiempo vive un gato?"  # shares "tiempo" with both pages
ANSWERED = "¿Cuánto tiempo guarda Obsidian Sync el historial de versiones?"  # shares "tiempo" too


def test_a_question_the_vault_does_not_answer_is_told_so_though_a_page_shares_its_word(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    """Before ``MIN_COSINE``: both passages share "tiempo", the packet was relevant, and the answer quoted them."""
    ctx = embedded(make_ctx(VAULT), e5)
    packet = build_packet(ctx, UNANSWERED, passages=4, budget_tokens=1200)
    assert packet.passages and all("tiempo" in p.text for p in packet.passages)
    assert all(p.cosine is not None and p.cosine < MIN_COSINE for p in packet.passages)
    assert not relevant(packet)
    answer = answer_turn(ctx, ScriptedProvider([unreachable]), Turn([{"role": "user", "content": UNANSWERED}]))
    assert answer.answer.startswith("La bóveda no lo dice.")
    assert not answer.citations


def test_a_question_the_vault_answers_keeps_its_passage_sharing_the_same_word(
    make_ctx: MakeContext, e5: OnnxEmbedder
) -> None:
    ctx = embedded(make_ctx(VAULT), e5)
    packet = build_packet(ctx, ANSWERED, passages=4, budget_tokens=1200)
    history = next(p for p in packet.passages if p.path == "es/Historial de versiones.md")
    assert lets_in(history, ANSWERED)
    answer = answer_turn(ctx, ScriptedProvider([unreachable]), Turn([{"role": "user", "content": ANSWERED}]))
    assert "doce meses" in answer.answer
    assert answer.citations[0].path == "es/Historial de versiones.md"


def test_without_an_e5_embedder_one_shared_word_still_lets_a_passage_in(make_ctx: MakeContext) -> None:
    """The floor is a scale of e5's cosines: a context with no embedder measures none and keeps the word rule."""
    ctx = make_ctx(VAULT)
    packet = build_packet(ctx, UNANSWERED, passages=4, budget_tokens=1200)
    assert packet.passages and all(p.cosine is None for p in packet.passages)
    assert relevant(packet)
