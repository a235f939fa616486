"""What a person reads holds no link cut in half and no sentence cut inside a parenthesis (stop 53)."""

from __future__ import annotations

import json
import re

from sentinel.answer import Turn, answer_turn
from sentinel.providers.base import ProviderUnavailable
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.tool_context import MakeContext

LINKED = {
    "notes/Sync.md": "# Sync\n\nThe version history depends on your [[Plans and storage limits|Sync plan]]. "
    "On the Plus plan notes are kept for 12 months.\n",
    "notes/Plans and storage limits.md": "# Plans and storage limits\n\nTwo plans: Standard and Plus.\n",
}
ASKED = Turn([{"role": "user", "content": "What does the version history depend on?"}], chat_id="t1")


def _writes(text: str, title: str) -> ScriptedProvider:
    """A scripted model writing ``text`` citing the passage of the page titled ``title`` (forced: a real one cuts
    a link only now and then)."""

    def write(request: ChatRequest) -> str:
        packet = str(request.messages[-1]["content"])
        found = re.search(rf"^\[(\d+)\] {re.escape(title)}\b", packet, re.MULTILINE)
        assert found, f"{title} is not in the packet:\n{packet}"
        return json.dumps({"sentences": [{"text": text, "cite": int(found.group(1))}]})

    return ScriptedProvider([write])


def test_a_link_the_model_cuts_in_half_is_shown_as_its_label(make_ctx: MakeContext) -> None:
    """Seen in answers_set's tr03: the small model kept "Yerleşik Eklentiler|eklentisi]", a link cut in half."""
    cut = "The version history depends on your Plans and storage limits|Sync plan]."
    answer = answer_turn(make_ctx(LINKED), _writes(cut, "Sync"), ASKED, model="scripted")
    assert answer.answered
    assert answer.answer == "The version history depends on your Sync plan. [1]"


def test_the_extractive_answer_quotes_a_parenthesis_whole(make_ctx: MakeContext) -> None:
    """Seen in the browser at stop 52: a quote opened "dein Handy) empfangen …", cut at the "z. B." in it."""

    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    page = "# Devices\n\nSecondary devices (e.g. your phone) receive updates from the primary device.\n"
    turn = Turn([{"role": "user", "content": "What do secondary devices receive?"}], chat_id="t1")
    answer = answer_turn(make_ctx({"notes/Devices.md": page}), ScriptedProvider([down]), turn)
    assert "> Secondary devices (e.g. your phone) receive updates from the primary device." in answer.answer
