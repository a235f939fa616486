"""The self-check's verdict (`sentinel openwebui check`, the last line of `make up`) is read from what Open WebUI
stored for the turn, in the layout its middleware writes (function_call / function_call_output items joined by
call_id, results as input_text parts): an answer that only sounds right, with no search behind it, fails."""

from __future__ import annotations

from typing import Any

import httpx

from sentinel.openwebui_check import EXPECTED_PAGE, ask, judge, tool_results
from tests.support.servers import hung_server


def _turn(*calls: tuple[str, str], content: str = "The conversations folder holds transcripts.") -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    for index, (name, result) in enumerate(calls):
        call_id = f"call_{index}"
        output.append({"type": "function_call", "id": call_id, "call_id": call_id, "name": name, "arguments": "{}"})
        output.append(
            {"type": "function_call_output", "call_id": call_id, "output": [{"type": "input_text", "text": result}]}
        )
    output.append({"type": "message", "content": [{"type": "output_text", "text": content}]})
    return {"role": "assistant", "content": content, "done": True, "output": output}


def test_a_search_that_returns_the_welcome_page_passes() -> None:
    hit = "[OK] 1 page\n1. notes/Welcome to Sentinel.md > Welcome to Sentinel: the four folders mean..."
    message = _turn(("listing", "[OK] notes/"), ("search", hit))
    assert tool_results(message) == [("listing", "[OK] notes/"), ("search", hit)]
    assert judge(message, EXPECTED_PAGE) == (True, f"search found '{EXPECTED_PAGE}'")


def test_a_right_sounding_answer_without_a_search_fails() -> None:
    ok, detail = judge(_turn(content=f"See {EXPECTED_PAGE}: conversations/ holds transcripts."), EXPECTED_PAGE)
    assert not ok and "made no search call and it cites no page" in detail


def test_a_search_that_misses_the_page_or_another_tool_that_finds_it_fails() -> None:
    ok, detail = judge(_turn(("search", "[DONE] nothing matches")), EXPECTED_PAGE)
    assert not ok and "did not return" in detail
    ok, _ = judge(_turn(("read", f"[OK] {EXPECTED_PAGE}")), EXPECTED_PAGE)
    assert not ok


def test_an_open_webui_that_never_answers_is_no_answer_not_a_traceback() -> None:
    # A model writing a 2,000-token reply on busy cores kept the turn open past the check's time: `make up` printed
    # httpx's ReadTimeout traceback instead of its FAILED line.
    with hung_server() as (url, _), httpx.Client(base_url=url.removesuffix("/v1")) as client:
        assert ask(client, "sentinel", "What is the conversations folder of my vault for?", 0.5, ["sentinel"]) is None


def test_an_answer_citing_the_welcome_page_passes_and_one_citing_another_fails() -> None:
    def answer(*names: str) -> dict[str, Any]:
        sources = [{"source": {"name": n, "url": ""}, "document": ["..."], "metadata": [{"name": n}]} for n in names]
        return {"role": "assistant", "content": "The conversations folder holds transcripts. [1]", "sources": sources}

    assert judge(answer(f"notes/{EXPECTED_PAGE}.md"), EXPECTED_PAGE) == (True, f"the answer cites '{EXPECTED_PAGE}'")
    ok, detail = judge(answer("notes/Other.md"), EXPECTED_PAGE)
    assert not ok and "notes/Other.md" in detail
