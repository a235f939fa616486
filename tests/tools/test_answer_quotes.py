"""What a person reads when the vault is quoted: whole sentences, never markup opened or closed half-way.

Seen in Open WebUI (docs/answers.md, "In the browser after stop 43's re-cut"): a quote ended in a code fence's
opener ("… copy the following properties into it: ```yaml") and another opened with a bold question's second
half ("Verliere ich …?**"), the pattern split having cut the bold span at its first question mark.
"""

from __future__ import annotations

from sentinel.answer import Turn, answer_turn
from sentinel.providers.base import ProviderUnavailable
from tests.support.scripted import ChatRequest, ScriptedProvider
from tests.support.tool_context import MakeContext

VAULT = {
    "notes/Refunds.md": "# Refunds\n\n## Frequently asked questions\n\n"
    "**What happens if I miss a payment and my subscription ends? Do I lose my remote vault data?**\n"
    "No, your data is kept for 30 days in such cases. Your local data stays untouched.\n",
    "notes/Map view.md": "# Map view\n\n## Example\n\n"
    "To start, try creating a note called **Eiffel Tower** and copy the following yaml properties into it:\n\n"
    '```yaml\n---\ncoordinates:\n  - "48.85837"\n  - "2.294481"\nicon: "landmark"\n---\n```\n\n'
    "Here's what the code above means.\n",
}


def _quoted(make_ctx: MakeContext, question: str) -> str:
    def down(_: ChatRequest) -> str:
        raise ProviderUnavailable("no connection")

    ctx = make_ctx(VAULT)
    answer = answer_turn(ctx, ScriptedProvider([down]), Turn([{"role": "user", "content": question}], chat_id="q"))
    assert answer.answer.startswith("From your vault (quoted):")
    return answer.answer


def _balanced(line: str) -> bool:
    return line.count("**") % 2 == 0 and line.count("`") % 2 == 0


def test_a_bold_question_is_quoted_whole(make_ctx: MakeContext) -> None:
    shown = _quoted(make_ctx, "Is my remote data lost, or is my local data untouched?")
    assert "**What happens if I miss a payment and my subscription ends? Do I lose my remote vault data?**" in shown
    assert all(_balanced(line) for line in shown.splitlines()), shown
    assert _all_lines_quoted(shown), shown


def test_a_code_fence_is_never_quoted_half_way(make_ctx: MakeContext) -> None:
    shown = _quoted(make_ctx, "Which yaml properties do I copy into the Eiffel Tower note?")
    assert "copy the following yaml properties into it:" in shown
    assert "```" not in shown, shown
    assert _all_lines_quoted(shown)


def _all_lines_quoted(shown: str) -> bool:
    """Every line after the opening is inside the quote (a line left out of it reads as the system's own; a
    bare ">" keeps two paragraphs of the quote apart)."""
    return all(line.startswith("> ") or line == ">" for line in shown.splitlines()[1:] if line.strip())
