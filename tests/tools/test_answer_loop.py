"""A model caught in a loop: the small Qwen wrote one sentence over and over until the schema's length limit
ended the string mid-word (browser, stop 53, bench/browser_turns_sixth.tsv row 3: "Metni `küçük harfe`
dönüştürür." fourteen times, then "Metni `küçük har"). Every copy is the passage's own words, so every gate kept
it. A person reads each sentence once and no word cut in half (``compose.once``)."""

from __future__ import annotations

import json

from sentinel.answer import Turn, answer_turn
from sentinel.answer.compose import MAX_CHARS, parse_sentences
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Tea.md": "# Tea\n\nGenmaicha is a Japanese green tea mixed with roasted brown rice. It is brewed at 80 "
    "degrees for three minutes.\n",
}
LOOPED = "It is brewed at 80 degrees for three minutes. "


def _looping(request: ChatRequest) -> str:
    """The model's reply as the server ends it: the item's string stops at ``MAX_CHARS``, mid-sentence."""
    looped = (LOOPED * (MAX_CHARS // len(LOOPED) + 1))[:MAX_CHARS]
    assert not looped.rstrip().endswith(".")
    return json.dumps({"sentences": [{"text": looped, "cite": 1}]})


def test_a_looping_model_is_read_once_and_its_cut_sentence_never(make_ctx: MakeContext) -> None:
    ctx = make_ctx(VAULT)
    turn = Turn([{"role": "user", "content": "How long is genmaicha brewed?"}], chat_id="t1")
    answer = answer_turn(ctx, ScriptedProvider([_looping]), turn, model="scripted")
    assert answer.answered
    assert answer.answer == "It is brewed at 80 degrees for three minutes. [1]"


def test_an_item_at_the_limit_loses_only_its_unfinished_sentence() -> None:
    whole = "Genmaicha is a Japanese green tea mixed with roasted brown rice."
    cut = f"{whole} {'x' * (MAX_CHARS - len(whole) - 12)} and the tea"
    sentences, _ = parse_sentences(json.dumps({"sentences": [{"text": cut[:MAX_CHARS], "cite": 1}]}))
    assert [s.text for s in sentences] == [whole]


def test_an_item_under_the_limit_is_left_as_written() -> None:
    """A short item ending without a full stop was not cut: the model ended it so ("Ctrl+Shift+T")."""
    item = "Reopen the closed tab with 1. Ctrl+Shift+T and 2. the menu"
    sentences, _ = parse_sentences(json.dumps({"sentences": [{"text": item, "cite": 1}]}))
    assert [s.text for s in sentences] == [item]
