"""capture: transcript verbatim and refreshed, note under notes/, one record line per conversation."""

from __future__ import annotations

from sentinel.tools.capture import capture
from sentinel.tools.policy import Status
from tests.support.tool_context import MakeContext


def chat(*turns: str) -> list[dict[str, str]]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)]


def test_capture_writes_transcript_note_and_record_line(make_ctx: MakeContext) -> None:
    ctx = make_ctx({})
    vault = ctx.settings.vault
    first = capture(
        ctx,
        "chat-A",
        chat("what is the growth queue?", "the unresolved names"),
        "Growth queue",
        "The growth queue lists names no page answers to.",
    )
    assert first.status is Status.OK
    transcripts = sorted((vault / "conversations").glob("*.md"))
    assert len(transcripts) == 1
    name = transcripts[0].stem
    note = (vault / "notes/Growth queue.md").read_text()
    assert note.count(f"Record: [[{name}]]") == 1 and note.startswith("The growth queue lists")

    second = capture(
        ctx,
        "chat-A",
        chat("what is the growth queue?", "the unresolved names", "save this too", "ok"),
        "Growth queue",
        "It revives links in one UPDATE.",
    )
    assert "appended to notes/Growth queue.md" in second.body
    assert sorted((vault / "conversations").glob("*.md")) == transcripts  # found again by chat id
    transcript = transcripts[0].read_text()
    assert "save this too" in transcript and "chat_id: chat-A" in transcript  # refreshed on every save
    note = (vault / "notes/Growth queue.md").read_text()
    assert note.count("Record:") == 1 and "It revives links" in note

    capture(ctx, "chat-B", chat("another chat"), "Growth queue", "From elsewhere.")
    note = (vault / "notes/Growth queue.md").read_text()
    assert note.count("Record:") == 2
    db = ctx.reader()
    record_targets = {r[0] for r in db.execute("SELECT resolved FROM links WHERE source = 'notes/Growth queue.md'")}
    assert record_targets == {str(p.relative_to(vault)) for p in (vault / "conversations").glob("*.md")}


def test_capture_label_is_a_setting_and_bad_input_is_named(make_ctx: MakeContext) -> None:
    ctx = make_ctx({}, record_label="Kayıt:")
    capture(ctx, "c", chat("merhaba"), "Not", "kaydet")
    assert "Kayıt: [[" in (ctx.settings.vault / "notes/Not.md").read_text()
    assert "chat_id" in capture(ctx, " ", chat("x"), "s", "c").body
    assert "messages" in capture(ctx, "c", [], "s", "c").body
    assert "subject" in capture(ctx, "c", chat("x"), "", "c").body


def test_a_capture_call_naming_no_language_labels_the_note_in_the_save_requests(make_ctx: MakeContext) -> None:
    """The model's own call of the save tool (the tool API's capture route, Open WebUI's tool) passes no language:
    seen after stop 47, a Turkish chat's note ended "Record: [[…]]" there while the pipeline's save wrote "Kayıt:".
    Capture decides the label from the conversation's last user turn on every path."""
    ctx = make_ctx({})
    turns = chat("Dosya Kurtarma kaç gün saklar?", "7 gün.", "bunu kaydet")
    assert capture(ctx, "chat-tr", turns, "Dosya Kurtarma", "Anlık görüntüler 7 gün saklanır.").status is Status.OK
    note = (ctx.settings.vault / "notes/Dosya Kurtarma.md").read_text()
    assert "\n\nKayıt: [[" in note and "Record:" not in note
    spanish = chat("¿Dónde está la llave?", "En el cobertizo.", "guarda esto")
    capture(ctx, "chat-es", spanish, "Llave", "En el cobertizo.")
    assert "\n\nRegistro: [[" in (ctx.settings.vault / "notes/Llave.md").read_text()
