"""Register the API's ``/mcp`` endpoint in Open WebUI as an MCP tool server, beside the Python tool.

The Python tool stays the default path: only it sees the whole conversation (``__messages__``), which capture
needs. The MCP server is there so a person can choose it (or an agent's own Open WebUI can use it): same seven
primitives, same descriptions, same keys. Idempotent: the entry is found by its id and replaced, every other tool
server a person configured is kept as it was.
"""

from __future__ import annotations

from typing import Any

import httpx

from sentinel.settings import OpenWebUISettings

SERVER_ID = "sentinel-mcp"
PUBLIC_READ = [{"principal_type": "user", "principal_id": "*", "permission": "read"}]


def mcp_connection(owui: OpenWebUISettings, key: str) -> dict[str, Any]:
    """Open WebUI's record of the MCP tool server (Admin Settings > External Tools)."""
    return {
        "type": "mcp",
        "url": owui.tool_api_url.rstrip("/") + "/mcp",
        "path": "",
        "auth_type": "bearer",
        "key": key,
        "config": {"enable": True, "access_grants": PUBLIC_READ},
        "info": {"id": SERVER_ID, "name": "Sentinel (MCP)", "description": "The vault's seven primitives over MCP."},
    }


def register_mcp_server(client: httpx.Client, owui: OpenWebUISettings, key: str) -> str:
    """Put Sentinel's MCP entry among Open WebUI's tool servers; ``client`` is signed in as an admin."""
    found = client.get("/api/v1/configs/tool_servers")
    found.raise_for_status()
    others = [
        c for c in found.json().get("TOOL_SERVER_CONNECTIONS", []) if (c.get("info") or {}).get("id") != SERVER_ID
    ]
    existed = len(others) < len(found.json().get("TOOL_SERVER_CONNECTIONS", []))
    body = {"TOOL_SERVER_CONNECTIONS": [*others, mcp_connection(owui, key)]}
    client.post("/api/v1/configs/tool_servers", json=body).raise_for_status()
    return "updated" if existed else "created"
