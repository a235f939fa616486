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
from sentinel.settings import Folders, Settings
from sentinel.tools.context import ToolContext
from sentinel.tools.policy import Status
from sentinel.tools.registry import tool_schemas
from tests.support.vault import WriteVault


def _doors(settings: Settings) -> tuple[str, str, str]:
    """What each door sends as the system prompt: Open WebUI's model, the terminal chat, MCP's prompt."""

    async def ladder() -> str:
        server = build_server(ToolContext(settings=settings), lambda: Scope.READ)
        async with Client(server) as client:
            content = (await client.get_prompt(LADDER_PROMPT)).messages[0].content
            assert isinstance(content, types.TextContent)
            return content.text

    return openwebui_prompt(settings), system_prompt_of(settings), anyio.run(ladder)


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


def test_the_doors_name_the_folders_the_settings_name(vault_settings: WriteVault) -> None:
    """Folder names are settings: the prompt and the tools' descriptions say the configured ones."""
    settings = vault_settings({"notes/A.md": "# A\n"})
    settings.folders = Folders(notes="Notizen", conversations="Gespräche")
    settings.openwebui = settings.openwebui.model_copy(update={"searcher_url": ""})
    for prompt in _doors(settings):
        assert "Gespräche/ holds verbatim transcripts" in prompt and "conversations/" not in prompt
    described = {s["function"]["name"]: s["function"] for s in tool_schemas(settings.folders)}
    assert "Transcripts under Gespräche/ cannot be moved" in described["relocate"]["description"]
    assert "use Notizen/." in described["write"]["description"]
    assert (
        described["read"]["parameters"]["properties"]["path"]["description"] == "vault-relative, e.g. Notizen/Topic.md"
    )

    async def listed() -> dict[str, str]:
        async with Client(build_server(ToolContext(settings=settings), lambda: Scope.WRITE)) as client:
            return {tool.name: tool.description or "" for tool in (await client.list_tools()).tools}

    assert "Pages under Gespräche/ can never be written" in anyio.run(listed)["write"]


def test_the_open_webui_tool_file_is_uploaded_in_the_configured_folders() -> None:
    """Setup uploads the tool file's text through ``Folders.in_text``: the docstrings the model reads change, the
    code does not, and the default folders leave the text as it is."""
    source = (Path(__file__).resolve().parents[1] / "tool" / "openwebui_tool.py").read_text(encoding="utf-8")
    assert Folders().in_text(source) == source
    renamed = Folders(notes="Notizen", conversations="Gespräche").in_text(source)
    compile(renamed, "openwebui_tool.py", "exec")
    assert "Pages under Gespräche/ can never be written" in renamed and "e.g. Notizen/Topic.md" in renamed
    assert "conversations/" not in renamed and "search_notes" in renamed
