"""Register Sentinel in a running Open WebUI through its REST API: the tool, its valves, and the Sentinel model.

Idempotent: each object is looked up by id and updated when it exists, created otherwise, so running it again
changes what changed and duplicates nothing. Talks HTTP only; Open WebUI itself is never imported here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tenacity import Retrying, retry_if_exception_type, stop_after_delay, wait_fixed

from sentinel.answer.probe import Probe, probe_key, probe_tool_calling, recorded_probe
from sentinel.errors import BadInput
from sentinel.mcp.openwebui import SERVER_ID, register_mcp_server
from sentinel.paths import probe_record_path
from sentinel.prompts import PromptMissing, read_prompt
from sentinel.providers import ProviderNotConfigured, provider_for
from sentinel.providers.servers import ModelServer
from sentinel.settings import OpenWebUISettings, Settings

ENV_PREFIX = "SENTINEL_OPENWEBUI__"
KEY_CREATED = "created (write scope)"
# Everyone who can sign in to Open WebUI may use the tool and the model (Open WebUI's "public" grant).
PUBLIC_READ = [{"principal_type": "user", "principal_id": "*", "permission": "read"}]
# The model wraps a base model with only Sentinel's tools: Open WebUI's own (search_notes, write_note, memories,
# web search, ...) would compete with the seven primitives for a small model's attention.
CAPABILITIES = {
    "builtin_tools": False,
    "web_search": False,
    "image_generation": False,
    "code_interpreter": False,
    "file_upload": False,
    "vision": False,
    "citations": True,
    "status_updates": True,
    "usage": True,
}


class SetupError(BadInput, RuntimeError):
    """Setup cannot go on; the message says which input is wrong and what to do."""


class _NotReady(Exception):
    """Open WebUI answered /health, but not yet healthy."""


@dataclass
class SetupReport:
    tool: str = ""  # "created" or "updated"
    model: str = ""
    key: str = ""  # where the valve's key came from
    mcp: str = ""  # the MCP tool server entry: "created", "updated", or why not
    research: str = ""  # the research tool: "created", "updated", "" when no Searcher is configured
    base_model: str = ""
    answers: str = ""  # how the Sentinel model answers: "pipeline" or "tools", and why
    warnings: list[str] = field(default_factory=list)

    def lines(self, settings: OpenWebUISettings) -> list[str]:
        lines = [
            f"tool '{settings.tool_id}' {self.tool}; valves: api_url={settings.tool_api_url}, key {self.key}",
            f"model '{settings.model_id}' ({settings.model_name}) {self.model}, wrapping '{self.base_model}'",
            f"answers: {self.answers}",
            f"MCP tool server '{SERVER_ID}' {self.mcp} ({settings.tool_api_url.rstrip('/')}/mcp)",
            f"research tool '{settings.research_tool_id}' {self.research} (the Searcher at {settings.searcher_url})"
            if self.research
            else "research: no Searcher configured (SENTINEL_OPENWEBUI__SEARCHER_URL); the prompt leaves it out",
        ]
        return lines + [f"warning: {warning}" for warning in self.warnings]


def setup(
    settings: Settings,
    create_key: Callable[[], str] | None = None,
    probe: Callable[[], Probe] | None = None,
    *,
    fresh_probe: bool = False,
) -> SetupReport:
    """Register tool, valves and model. ``create_key`` makes a write-scoped API key when none is configured;
    ``probe`` decides how the model answers when ``answer.mode`` is auto (default: ask the conversation model, or
    its recorded answer unless ``fresh_probe``)."""
    owui = settings.openwebui
    _check_inputs(settings)
    tool_source = settings.folders.in_text(_read_file(owui.tool_file, "tool_file"))
    research_source = _read_file(owui.research_tool_file, "research_tool_file") if owui.searcher_url else ""
    research_source = settings.folders.in_text(research_source)
    system_prompt = system_prompt_of(settings)
    report = SetupReport(base_model=base_model_of(settings))
    pipeline, report.answers = answer_mode(settings, probe, fresh=fresh_probe)
    with signed_in_client(owui) as client:
        report.tool = _put_tool(client, owui, tool_source)
        report.key = _set_valves(client, owui, create_key)
        if report.key == KEY_CREATED:
            report.warnings.append("a new write key was added to the key file: restart the tool API so it accepts it")
        if research_source:
            report.research = _put_research_tool(client, owui, research_source)
        if pipeline:
            _put_pipe(client, owui, _read_file(owui.pipe_file, "pipe_file"))
            report.model = _put_model(client, settings, "", owui.pipe_id, pipeline=True)
        else:
            report.model = _put_model(client, settings, system_prompt, report.base_model)
        report.mcp = _put_mcp_server(client, owui)
        listed = {model["id"] for model in _json(client.get("/api/models"), "listing models").get("data", [])}
        if report.base_model not in listed:
            report.warnings.append(
                f"Open WebUI does not list the base model '{report.base_model}' now, so '{owui.model_name}' stays "
                f"hidden until it does: check the connection (Admin Settings > Connections) or "
                f"{ENV_PREFIX}BASE_MODEL. Known: {', '.join(sorted(listed)) or 'none'}"
            )
    return report


@contextmanager
def signed_in_client(owui: OpenWebUISettings) -> Iterator[httpx.Client]:
    """A client on Open WebUI, once it is healthy, signed in as the configured admin."""
    with httpx.Client(base_url=owui.url.rstrip("/"), timeout=60.0) as client:
        wait_for_health(client, owui.wait_s)
        client.headers["Authorization"] = f"Bearer {_sign_in(client, owui)}"
        yield client


def base_model_of(settings: Settings) -> str:
    return settings.openwebui.base_model or settings.conversation.model


def _check_inputs(settings: Settings) -> None:
    owui = settings.openwebui
    missing = [
        f"{ENV_PREFIX}{name.upper()}"
        for name, value in (
            ("admin_email", owui.admin_email),
            ("admin_password", owui.admin_password.get_secret_value()),
        )
        if not value
    ]
    if missing:
        raise SetupError(
            f"Open WebUI admin credentials are missing: set {' and '.join(missing)} (the same account as Open "
            "WebUI's WEBUI_ADMIN_EMAIL / WEBUI_ADMIN_PASSWORD)"
        )
    if not base_model_of(settings):
        raise SetupError(
            f"no base model to wrap: set {ENV_PREFIX}BASE_MODEL (or SENTINEL_CONVERSATION__MODEL) to a model id "
            "Open WebUI lists, e.g. qwen3:8b"
        )


def _read_file(path: Path, setting: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as err:
        raise SetupError(f"cannot read {path} ({err.strerror}): set {ENV_PREFIX}{setting.upper()}") from err


def wait_for_health(client: httpx.Client, wait_s: float) -> None:
    """Poll /health until Open WebUI says it is up, or fail after ``wait_s`` seconds."""

    def probe() -> None:
        response = client.get("/health", timeout=5.0)
        if response.status_code != 200:
            raise _NotReady(f"/health answered {response.status_code}")

    try:
        for attempt in Retrying(
            stop=stop_after_delay(wait_s),
            wait=wait_fixed(1.0),
            retry=retry_if_exception_type((httpx.TransportError, _NotReady)),
            reraise=True,
        ):
            with attempt:
                probe()
    except (httpx.TransportError, _NotReady) as err:
        raise SetupError(
            f"Open WebUI at {client.base_url} was not healthy within {wait_s:.0f} s ({err!r}): is it running? "
            f"Set {ENV_PREFIX}URL"
        ) from err


def _sign_in(client: httpx.Client, owui: OpenWebUISettings) -> str:
    response = client.post(
        "/api/v1/auths/signin",
        json={"email": owui.admin_email, "password": owui.admin_password.get_secret_value()},
    )
    if response.status_code in (400, 401, 403):
        raise SetupError(
            f"Open WebUI refused the sign-in of '{owui.admin_email}' ({_detail(response)}): check "
            f"{ENV_PREFIX}ADMIN_EMAIL and {ENV_PREFIX}ADMIN_PASSWORD"
        )
    user = _json(response, "signing in")
    if user.get("role") != "admin":
        raise SetupError(f"'{owui.admin_email}' is not an Open WebUI admin (role {user.get('role')!r})")
    return str(user["token"])


def system_prompt_of(settings: Settings) -> str:
    """The Sentinel model's system prompt: the base prompt, plus when research applies only where a Searcher is
    configured (a prompt describing a tool the model does not have makes it reach for it)."""
    owui, folders = settings.openwebui, settings.folders
    try:
        base = read_prompt(owui.system_prompt_file, f"{ENV_PREFIX}SYSTEM_PROMPT_FILE", folders)
        if not owui.searcher_url:
            return base + "\n"
        research = read_prompt(owui.research_prompt_file, f"{ENV_PREFIX}RESEARCH_PROMPT_FILE", folders)
        return base + "\n\n" + research + "\n"
    except PromptMissing as err:
        raise SetupError(str(err)) from err


def tool_ids(owui: OpenWebUISettings) -> list[str]:
    """The tools the Sentinel model carries: the vault tool, and the research tool where a Searcher is set."""
    return [owui.tool_id, *([owui.research_tool_id] if owui.searcher_url else [])]


def _put_tool(
    client: httpx.Client, owui: OpenWebUISettings, source: str, tool_id: str = "", description: str = ""
) -> str:
    tool_id = tool_id or owui.tool_id
    form = {
        "id": tool_id,
        "name": owui.model_name if tool_id == owui.tool_id else f"{owui.model_name} research",
        "content": source,
        "meta": {"description": description or "Sentinel: your vault's seven primitives and save."},
    }
    exists = client.get(f"/api/v1/tools/id/{tool_id}").status_code == 200
    if exists:
        _json(client.post(f"/api/v1/tools/id/{tool_id}/update", json=form), "updating the tool")
    else:
        _json(client.post("/api/v1/tools/create", json=form), "creating the tool")
    grants = {"access_grants": PUBLIC_READ}
    _json(client.post(f"/api/v1/tools/id/{tool_id}/access/update", json=grants), "sharing the tool")
    return "updated" if exists else "created"


def _put_research_tool(client: httpx.Client, owui: OpenWebUISettings, source: str) -> str:
    """The research tool, its valves pointing at the Searcher with the key the vault tool's valves hold."""
    done = _put_tool(client, owui, source, owui.research_tool_id, "Sentinel: web research into sources/.")
    vault_valves = _json(client.get(f"/api/v1/tools/id/{owui.tool_id}/valves"), "reading the valves") or {}
    valves = {"api_url": owui.searcher_url, "api_key": str(vault_valves.get("api_key") or "")}
    path = f"/api/v1/tools/id/{owui.research_tool_id}/valves/update"
    _json(client.post(path, json=valves), "setting the research tool's valves")
    return done


def _set_valves(client: httpx.Client, owui: OpenWebUISettings, create_key: Callable[[], str] | None) -> str:
    """Point the tool at the API; keep a key already in place rather than minting one per run."""
    key = owui.tool_api_key.get_secret_value()
    origin = f"from {ENV_PREFIX}TOOL_API_KEY"
    if not key:
        current = _json(client.get(f"/api/v1/tools/id/{owui.tool_id}/valves"), "reading the valves") or {}
        key, origin = str(current.get("api_key") or ""), "kept from the valves"
    if not key:
        if create_key is None:
            raise SetupError(
                f"no API key for the tool: set {ENV_PREFIX}TOOL_API_KEY to a write key "
                "(sentinel keys create --scope write)"
            )
        key, origin = create_key(), KEY_CREATED
    valves = {"api_url": owui.tool_api_url, "api_key": key}
    _json(client.post(f"/api/v1/tools/id/{owui.tool_id}/valves/update", json=valves), "setting the valves")
    return origin


def _put_mcp_server(client: httpx.Client, owui: OpenWebUISettings) -> str:
    """The same API as an MCP tool server too, with the key the tool's valves hold (a person may pick either)."""
    valves = _json(client.get(f"/api/v1/tools/id/{owui.tool_id}/valves"), "reading the valves") or {}
    try:
        return register_mcp_server(client, owui, str(valves.get("api_key") or ""))
    except httpx.HTTPStatusError as err:
        raise SetupError(f"registering the MCP tool server failed: {_detail(err.response)}") from err


def answer_mode(
    settings: Settings, probe: Callable[[], Probe] | None = None, *, fresh: bool = False
) -> tuple[bool, str]:
    """Whether the Sentinel model answers through the pipeline (else the tool loop), and why. The default probe's
    answer is recorded per model server and model (``paths.probe_record_path``), so a warm start does not ask
    again; ``fresh`` asks anyway."""
    mode = settings.answer.mode
    if mode != "auto":
        return mode == "pipeline", f"{mode} (SENTINEL_ANSWER__MODE={mode})"
    if probe is None:
        try:
            provider = provider_for(settings.conversation, "conversation")
        except ProviderNotConfigured as err:
            return True, f"pipeline: no conversation model to probe ({err})"
        conversation = settings.conversation
        key = probe_key(conversation.kind, conversation.base_url, conversation.model)
        found = recorded_probe(probe_record_path(settings), key, lambda: probe_tool_calling(provider), fresh=fresh)
    else:
        found = probe()
    if found.tools:
        return False, f"tools: the base model passed the tool-calling probe ({found.reason})"
    return True, f"pipeline: the base model failed the tool-calling probe ({found.reason})"


def _put_pipe(client: httpx.Client, owui: OpenWebUISettings, source: str) -> None:
    """The answer pipe as an active function, its valves pointing at the API with the tool's key."""
    form = {
        "id": owui.pipe_id,
        "name": f"{owui.model_name} answers",
        "content": source,
        "meta": {"description": "Answers from your vault with checked citations (Sentinel's answer pipeline)."},
    }
    found = client.get(f"/api/v1/functions/id/{owui.pipe_id}")
    if found.status_code == 200:
        _json(client.post(f"/api/v1/functions/id/{owui.pipe_id}/update", json=form), "updating the answer pipe")
        active = bool(_json(client.get(f"/api/v1/functions/id/{owui.pipe_id}"), "reading the pipe").get("is_active"))
    else:
        _json(client.post("/api/v1/functions/create", json=form), "creating the answer pipe")
        active = False
    if not active:
        _json(client.post(f"/api/v1/functions/id/{owui.pipe_id}/toggle"), "switching the answer pipe on")
    tool_valves = _json(client.get(f"/api/v1/tools/id/{owui.tool_id}/valves"), "reading the valves") or {}
    valves = {"api_url": owui.tool_api_url, "api_key": str(tool_valves.get("api_key") or "")}
    path = f"/api/v1/functions/id/{owui.pipe_id}/valves/update"
    _json(client.post(path, json=valves), "setting the answer pipe's valves")


def _put_model(
    client: httpx.Client, settings: Settings, system_prompt: str, base_model: str, pipeline: bool = False
) -> str:
    owui = settings.openwebui
    found = client.get("/api/v1/models/model", params={"id": owui.model_id})
    existing = _json(found, "reading the model") if found.status_code == 200 else None
    # Merge into what is there so settings a person added in the UI (temperature, a profile image) survive.
    meta = dict((existing or {}).get("meta") or {})
    params = dict((existing or {}).get("params") or {})
    meta.update(
        {
            "description": "Answers from your vault through Sentinel's tools.",
            "toolIds": [] if pipeline else tool_ids(owui),
            "capabilities": {**(meta.get("capabilities") or {}), **CAPABILITIES},
        }
    )
    # max_tokens: the one reply cap (chat.reply_tokens), so a small model cannot ramble for minutes; the gateway
    # ends an answer cut there with a note saying so (pool/repair.CUT_NOTE).
    if pipeline:  # the pipe asks the API, which runs the model itself: nothing here reaches a model
        for key in ("system", "function_calling", "max_tokens", "num_ctx", "num_gpu"):
            params.pop(key, None)
    else:
        params.update({"system": system_prompt, "function_calling": "native", "max_tokens": settings.chat.reply_tokens})
        params.update(_runtime_params(settings))
    form = {
        "id": owui.model_id,
        "base_model_id": base_model,
        "name": owui.model_name,
        "meta": meta,
        "params": params,
        "is_active": True,
    }
    if existing is None:
        _json(client.post("/api/v1/models/create", json=form), "creating the model")
    else:
        _json(client.post("/api/v1/models/model/update", json=form), "updating the model")
    access = {"id": owui.model_id, "access_grants": PUBLIC_READ}
    _json(client.post("/api/v1/models/model/access/update", json=access), "sharing the model")
    return "created" if existing is None else "updated"


def _runtime_params(settings: Settings) -> dict[str, Any]:
    """What the conversation model's server takes per request (Ollama: num_ctx and num_gpu)."""
    return ModelServer.of(settings.conversation).spec.runtime_params(settings.conversation)


def _json(response: httpx.Response, doing: str) -> Any:
    if response.status_code != 200:
        raise SetupError(f"Open WebUI failed {doing}: {response.status_code} {_detail(response)}")
    return response.json()


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text or response.reason_phrase
    return str(body.get("detail", body) if isinstance(body, dict) else body)
