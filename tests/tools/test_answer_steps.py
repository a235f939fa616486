"""A how-to question whose written sentences give no step, while the passage they cite holds the steps: the steps
are quoted, the passage's own text (pipeline._steps_not_written, quotes.procedure).

Seen in the browser (bench/browser_turns_seventh.tsv row 1): "… ses kaydı nasıl alıyom?" was answered by the small
Qwen's one true, cited sentence "Obsidian kaydedilen ses dosyasını kasanıza kaydeder ve etkin notun sonuna gömer.",
which says what happens after the steps, not how; the steps were on the passage it cited. The page is the eval
vault's, verbatim (its embedded icon left out).
"""

from __future__ import annotations

from sentinel.answer import Answer, Turn, answer_turn
from tests.support.scripted import ScriptedProvider, cited_sentences
from tests.support.tool_context import MakeContext

PAGE = (
    "Ses kaydedicisi, bir Obsidian notunda ses kaydedip kaydetmenizi sağlayan bir çekirdek eklentidir. Ses "
    "kaydedicisi eklentisi ile bir ders, toplantı veya yeterince hızlı yazamadığınız diğer önemli durumlarda "
    "ayrıntıları kaydedebilirsiniz.\n\n"
    "## Bir notta ses kaydetme\n\n"
    "1. Yeni bir not oluşturun veya mevcut bir notu açın.\n"
    "2. Araç çubuğunda **Kaydı başlat/durdur** simgesine tıklayarak kayda başlayın. Simge renk değiştirdiği anda "
    "kayıt başlar.\n"
    "3. Kaydı durdurmak ve notunuza eklemek için simgeye tekrar tıklayın.\n\n"
    "Obsidian kaydedilen ses dosyasını kasanıza kaydeder ve etkin notun sonuna gömer.\n\n"
    "> [!note] Not\n"
    "> Ses kayıtları, notunuzdan kaldırsanız bile kasanızda kalmaya devam eder.\n"
)
HOW = "derste hocayı yetiştiremiyorum, obsidianda notun içine ses kaydı nasıl alıyom?"
RESULT = "Obsidian kaydedilen ses dosyasını kasanıza kaydeder ve etkin notun sonuna gömer."
STEPS = (
    "> 1. Yeni bir not oluşturun veya mevcut bir notu açın.\n"
    "> 2. Araç çubuğunda **Kaydı başlat/durdur** simgesine tıklayarak kayda başlayın. Simge renk değiştirdiği anda "
    "kayıt başlar.\n"
    "> 3. Kaydı durdurmak ve notunuza eklemek için simgeye tekrar tıklayın. [1]"
)


def _ask(make_ctx: MakeContext, question: str, *written: str) -> Answer:
    ctx = make_ctx({"tr/Eklentiler/Ses kaydedicisi.md": PAGE})
    provider = ScriptedProvider([cited_sentences(*written)])
    return answer_turn(ctx, provider, Turn([{"role": "user", "content": question}], chat_id="q"))


def test_a_how_to_answered_without_a_step_quotes_the_passages_steps(make_ctx: MakeContext) -> None:
    answer = _ask(make_ctx, HOW, RESULT)
    assert answer.answered, answer.answer  # the model's true sentence stays, cited
    # the steps first, as the page lists them before the sentence the model restated
    assert answer.answer == f"{STEPS}\n\n{RESULT} [1]", answer.answer
    assert "tekrar tıklayın" in answer.rests_on[0].quote
    assert any("steps are quoted" in note for note in answer.notes), answer.notes


def test_a_step_written_or_a_question_asking_no_how_is_left_as_written(make_ctx: MakeContext) -> None:
    step = "Araç çubuğunda Kaydı başlat/durdur simgesine tıklayarak kayda başlayın."
    assert _ask(make_ctx, HOW, step).answer == f"{step} [1]"  # it says how: nothing added
    where = "obsidian ses kaydını nereye kaydeder?"  # asks where, not how: the sentence answers it
    assert _ask(make_ctx, where, RESULT).answer == f"{RESULT} [1]"


def test_steps_read_in_the_answer_before_are_not_quoted_again(make_ctx: MakeContext) -> None:
    ctx = make_ctx({"tr/Eklentiler/Ses kaydedicisi.md": PAGE})
    kept = "Ses kayıtları, notunuzdan kaldırsanız bile kasanızda kalmaya devam eder."
    messages = [
        {"role": "user", "content": HOW},
        {"role": "assistant", "content": f"{STEPS}\n\n{RESULT} [1]"},
        {"role": "user", "content": "peki kaydı nottan nasıl kaldırırım?"},
    ]
    answer = answer_turn(ctx, ScriptedProvider([cited_sentences(kept)]), Turn(messages, chat_id="q"))
    assert answer.answer == f"{kept} [1]", answer.answer  # the steps just read are not shown twice
