"""One system prompt, three doors: Open WebUI's Sentinel model, ``sentinel chat`` and MCP's ``ladder`` prompt send
the text ``sentinel.prompts.read_prompt`` makes of the one file, status markers written in from ``Status``."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types

from mcp import Client
from sentinel import prompts
from sentinel.chat.session import HARNESS_NOTE, system_prompt_of
from sentinel.keys import Scope
from sentinel.mcp.server import LADDER_PROMPT, build_server
from sentinel.openwebui import system_prompt_of as openwebui_prompt
from sentinel.settings import Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import Status
from tests.support.vault import WriteVault


def _doors(settings: Settings) -> tuple[str, str, str]:
    """What each door sends as the system prompt: Open WebUI's model, the terminal chat, MCP's prompt."""

    async def ladder() -> str:
        server = build_server(ToolContext(settings=settings), lambda: Scope.READ)
        async with Client(server) as client:
            content = (await client.get_prompt(LADDER_PROMPT)).messages[0].content
            assert isinstance(content, types.TextContent)
            return content.text

    return openwebui_prompt(settings.openwebui), system_prompt_of(settings), anyio.run(ladder)


def test_the_three_doors_send_the_shipped_prompt(vault_settings: WriteVault) -> None:
    settings = vault_settings({"notes/A.md": "# A\n"})
    settings.openwebui = settings.openwebui.model_copy(update={"searcher_url": ""})
    owui, chat, mcp = _doors(settings)
    shipped = prompts.read_prompt(prompts.SYSTEM_PROMPT, "unused")
    assert owui == shipped + "\n"
    assert chat == shipped + HARNESS_NOTE
    assert mcp == shipped
    assert all(f"\n{status} " in shipped for status in Status)


def test_a_configured_prompt_reaches_all_three_doors(vault_settings: WriteVault, tmp_path: Path) -> None:
    settings = vault_settings({"notes/A.md": "# A\n"})
    own = tmp_path / "prompt.txt"
    own.write_text("Answer from the vault.\nStatuses:\n{status_markers}\nBe brief.\n", encoding="utf-8")
    settings.openwebui = settings.openwebui.model_copy(update={"system_prompt_file": own, "searcher_url": ""})
    owui, chat, mcp = _doors(settings)
    assert owui.strip() == chat.removesuffix(HARNESS_NOTE) == mcp
    assert mcp.startswith("Answer from the vault.\nStatuses:\n[OK] ") and mcp.endswith("\nBe brief.")
    assert "{status_markers}" not in mcp and all(status in mcp for status in Status)
