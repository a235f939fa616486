"""A how-to question whose written sentences give no step, while the passage they cite holds the steps: the steps
are quoted, the passage's own text (pipeline._steps_not_written, quotes.procedure).

Seen in the browser (bench/browser_turns_seventh.tsv row 1): "… ses kaydı nasıl alıyom?" was answered by the small
Qwen's one true, cited sentence "Obsidian kaydedilen ses dosyasını kasanıza kaydeder ve etkin notun sonuna gömer.",
which says what happens after the steps, not how; the steps were on the passage it cited. The page is the eval
vault's, verbatim (its embedded icon left out).
"""

from __future__ import annotations

from sentinel.answer import Answer, Turn, answer_turn, pipeline
from sentinel.answer.packet import Packet, Passage
from sentinel.gates.support import CitedSentence
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


# The eval vault's es/Importar notas/Importar desde Google Keep.md, its opening and two sections verbatim
KEEP = (
    "Obsidian te permite migrar fácilmente tus notas desde Google Keep usando el [[Importador|complemento "
    "Importador]]. Esto convertirá tus datos de Google Keep a archivos Markdown duraderos, que puedes usar con "
    "Obsidian y muchas otras aplicaciones.\n\n"
    "## Exportar tus datos de Google Keep\n\n"
    "1. Ve a [Google Takeout](https://takeout.google.com/settings/takeout) e inicia sesión en tu cuenta de Google.\n"
    "2. Haz clic en **Deseleccionar todo** en la esquina superior derecha.\n"
    "3. Desplázate hacia abajo y selecciona **Keep** de la lista.\n"
    "4. Desplázate hasta el final de la página y haz clic en **Siguiente paso**.\n"
    "5. En la siguiente pantalla, haz clic en el botón **Crear exportación**.\n"
    "6. Descarga el archivo `.zip` una vez que esté disponible.\n\n"
    "## Importar tus datos de Google Keep a Obsidian\n\n"
    "Necesitarás el complemento oficial de Obsidian [[Importador]], que puedes [instalar "
    "aquí](obsidian://show-plugin?id=obsidian-importer).\n\n"
    "1. Abre **[[Configuración]]**.\n"
    "2. Ve a **Complementos creados por la comunidad** e [instala "
    "Importador](obsidian://show-plugin?id=obsidian-importer).\n"
    "3. Activa el complemento Importador.\n"
    "4. Abre el complemento **Importador** usando la paleta de comandos o el icono del menú de cinta.\n"
    "5. En **Formato de archivo** elige **Google Keep (.zip).**\n"
    "6. Selecciona la ubicación de tu archivo `.zip`.\n"
    "7. Haz clic en **Importar** y espera hasta que la importación se complete.\n"
    "8. ¡Listo!\n"
)
OPENING = (
    "Obsidian te permite migrar fácilmente tus notas desde Google Keep usando el complemento Importador. Esto "
    "convertirá tus datos de Google Keep a archivos Markdown duraderos, que puedes usar con Obsidian y muchas otras "
    "aplicaciones."
)


def test_a_how_to_citing_the_pages_opening_gets_the_pages_steps(make_ctx: MakeContext) -> None:
    """Seen in the browser (bench/browser_turns_eighth.tsv row 3): the packet held the page's Google Takeout steps
    (passage 1) and its opening (passage 2); the model cited the opening, which holds no step, and the person read
    no step. The packet is the one the eval vault gave, its passages' text verbatim."""
    path, title = "es/Importar notas/Importar desde Google Keep.md", "Importar desde Google Keep"
    ctx = make_ctx({path: KEEP})
    steps = KEEP.split("## Exportar tus datos de Google Keep\n\n")[1].split("\n\n## ")[0]
    packet = Packet("tengo años de notas en google keep, como las paso a obsidian? q pasos tengo q seguir")
    packet.passages = [
        Passage(
            1, path, title, "Exportar tus datos de Google Keep", f"{title} > Exportar tus datos de Google Keep", steps
        ),
        Passage(2, path, title, "", title, KEEP.split("\n\n")[0]),
    ]
    answer = pipeline._written(ctx, packet, [CitedSentence(OPENING, 2)], 0, [], 0)
    assert answer.answer.startswith(f"{OPENING} [1]\n\n> 1. Ve a [Google Takeout]"), answer.answer
    assert answer.answer.endswith("Descarga el archivo `.zip` una vez que esté disponible. [2]"), answer.answer
    assert [c.heading for c in answer.citations] == ["", "Exportar tus datos de Google Keep"]
    other_page = [Passage(1, "es/Otra.md", "Otra", "", "Otra", steps), packet.passages[1]]
    packet.passages = other_page  # another page's steps are never quoted for it
    assert pipeline._written(ctx, packet, [CitedSentence(OPENING, 2)], 0, [], 0).answer == f"{OPENING} [1]"
