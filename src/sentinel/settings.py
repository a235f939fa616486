"""Every knob Sentinel has, with its default and what it means.

Values come from the environment (prefix ``SENTINEL_``, nested fields joined by ``__``) or a ``.env`` file.
Entry points build one ``Settings`` and pass it down; nothing reads the environment anywhere else.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# Settings.pool's model; the pool package imports it from here, its one door into the core's settings
# (tests/test_import_rules.py)
from sentinel.pool_settings import PoolSettings
from sentinel.prompts import RESEARCH_PROMPT, SYSTEM_PROMPT


class Folders(BaseModel):
    """Names of the four role folders at the top of the vault."""

    notes: str = Field("notes", description="What the user kept: the authority; places links, feeds the graph.")
    wiki: str = Field("wiki", description="Concept pages; derived: may only point at concepts the graph has.")
    conversations: str = Field("conversations", description="Verbatim transcripts: read-only, silent.")
    sources: str = Field("sources", description="Web research records and pasted material: body rung only.")

    def in_text(self, text: str) -> str:
        """A text the model reads (a tool description, a prompt), written with the default folder names
        (``notes/``, ``conversations/``, ...), in the names these settings give the folders."""
        renamed = {str(field.default): getattr(self, name) for name, field in Folders.model_fields.items()}
        if all(default == name for default, name in renamed.items()):
            return text
        return _DEFAULT_FOLDER.sub(lambda found: renamed[found.group(1)] + "/", text)


# a default folder name where a text names the folder: not inside a word or a longer path (search_notes, /x/notes/)
_DEFAULT_FOLDER = re.compile(r"(?<![\w/.-])(notes|wiki|conversations|sources)/")


class ProviderSettings(BaseModel):
    """One model role: where it is served and how it is called."""

    kind: str = Field("ollama", description="The server's kind, as registered (ollama; openai: OpenAI-compatible).")
    base_url: str = Field("http://localhost:11434", description="Server root (OpenAI kind: up to /v1).")
    model: str = Field("", description="Model name as the server knows it. Empty: role not configured.")
    api_key_env: str = Field("", description="Name of the environment variable holding the API key, if any.")
    num_ctx: int = Field(8192, description="Context window in tokens; the truncation gate compares against it.")
    num_gpu: int | None = Field(None, description="Ollama: layers on the GPU. Set it high to keep all layers.")
    keep_alive: str = Field("5m", description="Ollama: how long the model stays loaded after a call.")
    timeout_s: float = Field(600.0, description="Per-call timeout in seconds.")

    @field_validator("kind")
    @classmethod
    def _a_known_kind(cls, kind: str) -> str:
        from sentinel.providers.servers import server_kind  # the kinds register themselves there

        server_kind(kind)  # raises UnknownKind (a ValueError) naming the known ones
        return kind


class OpenWebUISettings(BaseModel):
    """How ``sentinel openwebui setup`` registers Sentinel in Open WebUI (tool, valves, model)."""

    url: str = Field("http://localhost:3000", description="Open WebUI root as this command reaches it.")
    admin_email: str = Field("", description="An Open WebUI admin account (e.g. its WEBUI_ADMIN_EMAIL).")
    admin_password: SecretStr = Field(SecretStr(""), description="That admin's password.")
    base_model: str = Field(
        "", description="Model the Sentinel model wraps, as Open WebUI lists it. Empty: conversation.model."
    )
    tool_api_url: str = Field(
        "http://api:8000", description="The tool API as Open WebUI reaches it (the tool's valve)."
    )
    tool_api_key: SecretStr = Field(
        SecretStr(""), description="Write key for the tool's valve. Empty: keep the valve's key, else create one."
    )
    tool_id: str = Field("sentinel", description="Id of the tool in Open WebUI.")
    model_id: str = Field("sentinel", description="Id of the wrapping model in Open WebUI.")
    model_name: str = Field("Sentinel", description="Name people pick in Open WebUI's model list.")
    tool_file: Path = Field(Path("tool/openwebui_tool.py"), description="The tool source registered in Open WebUI.")
    pipe_id: str = Field("sentinel_answers", description="Id of the answer pipe (a function) in Open WebUI.")
    pipe_file: Path = Field(
        Path("tool/openwebui_pipe.py"),
        description="The answer pipe registered in Open WebUI: the Sentinel model wraps it when answer.mode is "
        "pipeline (or auto decides it).",
    )
    system_prompt_file: Path = Field(
        SYSTEM_PROMPT, description="The Sentinel model's system prompt (default: the one the package ships)."
    )
    wait_s: float = Field(180.0, description="How long setup waits for Open WebUI's /health.")
    searcher_url: str = Field(
        "",
        description="The Searcher as Open WebUI reaches it (http://searcher:8002). Empty: no research tool, and "
        "the system prompt does not mention research.",
    )
    research_tool_id: str = Field("sentinel_research", description="Id of the research tool in Open WebUI.")
    research_tool_file: Path = Field(
        Path("tool/openwebui_research_tool.py"), description="The research tool source registered in Open WebUI."
    )
    research_prompt_file: Path = Field(
        RESEARCH_PROMPT, description="Added to the system prompt when the Searcher is set (default: the package's)."
    )
    chat_prefix_file: Path = Field(
        Path("tool/chat_prefix.json"),
        description="The Sentinel chat's prefix as Open WebUI sends it (make chat-prefix), warmed until a chat "
        "records one.",
    )
    warm: bool = Field(
        True, description="sentinel openwebui warm sends the chat prefix (false: it only says it is off)."
    )
    warm_url: str = Field(
        "",
        description="The OpenAI-compatible endpoint Open WebUI's chat connection uses, which the warm-up fills. "
        "Empty: nothing to warm.",
    )
    warm_key: SecretStr = Field(SecretStr(""), description="That endpoint's API key (the connection's).")
    warm_timeout_s: float = Field(
        900.0, gt=0, description="How long the warm-up waits for the endpoint to answer and its prefill to end."
    )


class ChatSettings(BaseModel):
    """``sentinel chat``, the diagnostic harness: how far one turn may go before the harness stops it."""

    max_tool_calls: int = Field(
        8, ge=1, description="Tool calls the model may make in one turn; it is told when it reaches the cap."
    )
    retries_per_tool: int = Field(
        1, ge=0, description="Calls of a tool that answered [RETRY] that are still run in the same turn."
    )
    reply_tokens: int = Field(
        1024,
        ge=16,
        description="Most tokens one model reply may take, here and in Open WebUI's Sentinel model (its max_tokens, "
        "written at each setup); a cut answer is reported.",
    )
    system_prompt_file: Path | None = Field(
        None, description="The system prompt. Empty: the one Open WebUI's model gets (openwebui.system_prompt_file)."
    )
    budget_warn_share: float = Field(
        0.8, gt=0, le=1, description="Warn after a turn once the context holds this share of the window."
    )


class AnswerSettings(BaseModel):
    """The answer pipeline (``sentinel.answer``): Open WebUI's Sentinel model, ``sentinel ask``, ``/v1/ask``, MCP."""

    mode: Literal["auto", "pipeline", "tools"] = Field(
        "auto",
        description="How Open WebUI's Sentinel model answers: pipeline (code runs the ladder, the model writes "
        "checked sentences), tools (the model runs the tool loop itself), or auto (setup probes the base model: "
        "one that calls tools natively and then answers in prose gets tools, any other the pipeline).",
    )
    passages: int = Field(4, ge=1, le=12, description="Passages in one evidence packet (one per page, best first).")
    reply_tokens: int = Field(256, ge=32, description="Most tokens the model's cited sentences may take.")


class SearchSettings(BaseModel):
    """The search ladder: how the retrieval legs are fused and when the extras run (bench/retrieval.py)."""

    fusion: Literal["scores", "weighted", "rrf"] = Field(
        "scores",
        description="scores: the wording and unit legs by a convex combination of their normalised scores "
        "(score_alpha), then RRF with the other legs, weighted (measured best); weighted: every leg by rank, RRF with "
        "the leg weights below; rrf: plain RRF, k=60.",
    )
    # Chosen in round fifteen on the 13 choosing sets (public, convo-choose, vault-choose, vault-fresh,
    # vault-fresh2 ... vault-fresh10) among 0.3-0.8 (docs/retrieval.md); .5 read about as well there.
    score_alpha: float = Field(
        0.4,
        ge=0,
        le=1,
        description="With fusion=scores: the unit (meaning) leg's share of the combined score, the wording leg's "
        "1 - score_alpha.",
    )
    rrf_k: float = Field(10.0, gt=0, description="RRF constant of the weighted fusion; smaller favours top ranks.")
    # The leg weights were chosen for 120-word overlapping windows on public, vault-choose and convo-choose
    # (issue 32 round four) and kept in round five on vault-fresh, which chose nothing; the meaning legs' two were
    # lowered in round eight, beside the passage vote, on the six choosing sets; the wording and unit legs raised in
    # round ten (1.5 -> 1.875, 1.75 -> 2.25) against the passage vote and the summary leg, on the eight choosing
    # sets (docs/retrieval.md).
    weight_lexical: float = Field(1.875, ge=0, description="Weight of the FTS5 (wording) leg.")
    weight_chunks: float = Field(2.25, ge=0, description="Weight of the semantic leg over body chunks.")
    weight_summaries: float = Field(0.5, ge=0, description="Weight of the semantic leg over page summaries.")
    weight_excerpts: float = Field(
        0.75,
        ge=0,
        description="The summary leg's weight for a page whose summary is only an excerpt of entries (a chat log's "
        "first turns: no description, no analysis, a first unit that is an entry).",
    )
    weight_passages: float = Field(
        2.0,
        ge=0,
        description="Weight of the passage ranking: pages by their best unit when the wording and meaning legs' "
        "unit ranks are fused unit by unit (plain RRF), so a page whose one passage both legs rank high comes up "
        "where each leg alone put other pages first. 0: off. Chosen in round seven on public, vault-choose, "
        "convo-choose, vault-fresh and vault-fresh2 (docs/retrieval.md).",
    )
    window_prior: float = Field(
        0.1,
        ge=0,
        description="A page's vote in the wording leg is its weight times its count of prose windows to the power "
        "-window_prior: a page of many windows holds some incidental word of almost any question, so it is found by "
        "wording more often than its text answers. 0: off. Entries (chat turns, bullets) do not count. Chosen on "
        "vault-choose (bench/vault_questions.tsv), with public and convo-choose not falling (docs/retrieval.md).",
    )
    leg_depth: int = Field(100, ge=10, description="Candidates each leg contributes to the fusion.")
    # Pseudo-relevance feedback on the unit leg (``vectors.fed_back``; round seventeen, docs/retrieval.md)
    feedback_units: int = Field(
        0, ge=0, description="Units the unit leg's second pass moves the query toward (its first pass's best). 0: off."
    )
    feedback_beta: float = Field(0.3, ge=0, description="How far the second pass moves the query toward them.")
    feedback_from: Literal["units", "agreed"] = Field(
        "units", description="units: the unit leg's best; agreed: the best units both the wording and unit leg found."
    )
    feedback_leg: Literal["replace", "own"] = Field(
        "replace", description="replace: the second pass is the unit leg; own: its pages vote as one more leg."
    )
    timeout_s: float = Field(
        2.0, gt=0, description="Budget for query embedding and retrieval; past it the answer is lexical, with a note."
    )
    pagerank: Literal["auto", "always", "never"] = Field(
        "auto", description="Personalized PageRank rerank: auto runs it for relationship-shaped queries only."
    )
    quality_penalty: float = Field(
        0.7, gt=0, le=1, description="Rank weight factor per quality flag (status: seedling, confidence: low)."
    )
    kept_out_scopes: list[str] = Field(
        ["personal"],
        description="Frontmatter scope values kept out of every query that does not ask for them (scope:personal). "
        "A retrieval boundary, not a privacy boundary: read by path still opens such a page. [] turns it off.",
    )
    scope_folders: dict[str, str] = Field(
        {},
        description='Folders whose pages count as a scope, as JSON: {"Journal": "personal"} keeps Journal/ out '
        "like scope: personal pages.",
    )
    rerank: bool = Field(
        False, description="Second stage: reorder the top pages by their best unit's e5 score (bench/retrieval.py)."
    )
    rerank_depth: int = Field(30, ge=2, description="Fused pages the second stage reorders.")
    rerank_weight: float = Field(1.0, ge=0, description="Weight of the second stage's order against the fused one.")


class ResearchSettings(BaseModel):
    """The Searcher: web research written as source records into the vault's sources folder (docs/research.md)."""

    backend: Literal["searxng", "brave"] = Field(
        "searxng", description="Search backend: searxng (its JSON API, self-hosted) or brave (Brave Search API)."
    )
    searxng_url: str = Field("http://searxng:8080", description="SearXNG root; its JSON format must be enabled.")
    brave_url: str = Field(
        "https://api.search.brave.com/res/v1/web/search", description="Brave Search API web search endpoint."
    )
    brave_key_env: str = Field(
        "BRAVE_SEARCH_API_KEY", description="Name of the environment variable holding the Brave Search API key."
    )
    results: int = Field(8, ge=1, le=50, description="Search results fetched per question.")
    user_agent: str = Field("SentinelSearcher/0.1", description="User agent sent, and matched in robots.txt.")
    fetch_timeout_s: float = Field(10.0, gt=0, description="Seconds one page (or robots.txt) may take, in all.")
    max_page_bytes: int = Field(3_000_000, gt=0, description="A page larger than this is not used (over the cap).")
    max_redirects: int = Field(5, ge=0, description="Redirects followed per page before it is not used.")
    allow_private_addresses: bool = Field(
        False, description="Fetch result URLs on loopback or private addresses (off: the stack's services stay out)."
    )
    min_text_chars: int = Field(200, ge=0, description="A page whose main text is shorter is not used (too short).")
    passage_min_chars: int = Field(60, ge=1, description="Paragraphs shorter than this are not passages.")
    passage_max_words: int = Field(150, ge=10, description="Longer paragraphs are split at sentence ends.")
    min_similarity: float = Field(
        0.84, ge=0, le=1, description="e5 cosine (question and passage, both as passages) from which a passage answers."
    )
    passages_per_page: int = Field(3, ge=1, description="Most passages taken from one page (best first).")
    model_filter: bool = Field(
        False, description="Ask the extraction model 'does this passage answer?' (it can only remove passages)."
    )
    host: str = Field("127.0.0.1", description="Address the Searcher service binds to.")
    port: int = Field(8002, description="Port the Searcher service listens on.")


class Settings(BaseSettings):
    """Sentinel's configuration. See ``.env.example`` for the environment spelling of each field."""

    model_config = SettingsConfigDict(
        env_prefix="SENTINEL_", env_nested_delimiter="__", env_file=".env", extra="ignore"
    )

    vault: Path = Field(Path("vault"), description="The markdown vault: the only truth.")
    index_path: Path | None = Field(
        None, description="The SQLite index. Empty: <vault>/.sentinel/index.db (see paths.index_path)."
    )
    folders: Folders = Field(default_factory=Folders)

    max_page_bytes: int = Field(5_000_000, description="Larger .md files are skipped with a recorded reason.")
    disappearance_share: float = Field(
        0.5, description="A sync that finds more than this share of pages gone at once deletes nothing."
    )
    chunk_words: int = Field(
        120,
        description="Upper bound of words in one prose window (before its opening paragraph of overlap, "
        "sentinel.vault.entries.OVERLAP_WORDS). 120 with the overlap: issue 32 round four, kept in round five "
        "on vault-fresh (docs/retrieval.md).",
    )

    embedder_url: str = Field("", description="HTTP embedder service root, e.g. http://embedder:8001.")
    embed_model_dir: Path | None = Field(None, description="multilingual-e5-small ONNX dir for in-process use.")
    embed_threads: int = Field(2, description="ONNX Runtime intra-op threads.")
    embed_batch: int = Field(32, description="Texts per embedding batch.")
    embed_model_file: str = Field(
        "",
        description="ONNX file inside embed_model_dir. Empty: onnx/model.onnx (the official export), else "
        "model.onnx (make models' int8 build; model_fp32.onnx beside it is the float one).",
    )
    embed_timeout_s: float = Field(120.0, description="HTTP embedder: seconds one batch may take.")
    embed_max_request_texts: int = Field(1024, description="Embedder service: most texts one POST /embed takes.")

    read_page_chars: int = Field(4000, description="The read primitive pages long text at this many chars.")
    list_page_size: int = Field(50, description="Rows per page of listing output.")
    search_hits: int = Field(5, description="Hits per search result page.")
    search: SearchSettings = Field(default_factory=SearchSettings)
    record_label: str = Field(
        "",
        description="Label of the line that points a note at its transcript. Empty: the save's language's "
        "(Record:, Protokoll:, Registro:, Kayıt:); a label set here is used in every language.",
    )

    api_keys_file: Path | None = Field(None, description="File of hashed API keys (sentinel keys create).")
    api_keys: str = Field("", description="Extra keys as 'write:<key>,read:<key>' (e.g. from a secret store).")
    local_only: bool = Field(False, description="Serve without keys; only allowed when bound to loopback.")
    api_host: str = Field("127.0.0.1", description="Address the tool API binds to.")
    api_port: int = Field(8000, description="Port the tool API listens on.")
    sync_interval_s: float = Field(
        15.0,
        description="The API's safety-net poll of the vault (file events do the rest). 0: file events only.",
    )
    watch: Literal["auto", "poll", "off"] = Field(
        "auto",
        description="Live index: auto = file events, falling back to polling where they do not arrive (some bind "
        "mounts); poll = poll every watch_poll_s; off = only the sync_interval_s poll.",
    )
    watch_debounce_s: float = Field(
        0.3, gt=0, description="Quiet time after a file event before the page is re-read (editors save in steps)."
    )
    watch_poll_s: float = Field(1.0, gt=0, description="How often the vault is polled when file events do not arrive.")

    redis_url: str = Field("redis://localhost:6379/0", description="Broker, locks and the model-pool registry.")
    maintain_at: str = Field("23:00", description="Nightly maintenance time, HH:MM, local time.")
    maintain_minutes: int = Field(60, description="Time budget of one maintenance pass.")
    maintain_retry_s: float = Field(
        60.0, gt=0, description="First wait before a scheduled pass that reached no model is tried again (doubles)."
    )
    maintain_idle_minutes: float = Field(
        0.0,
        ge=0,
        description="Opportunistic maintenance: also run the pass between nights once the vault and the "
        "conversation model have been idle this many minutes and the analysis model fits in free VRAM (0: off).",
    )
    maintain_chat_idle_s: float = Field(
        30.0,
        ge=0,
        description="Chat comes first: a pass pauses between pages while a chat request is in flight on its model "
        "server (seen by the API's gateway) and resumes once the server has had no chat for this many seconds.",
    )
    redis_prefix: str = Field("sentinel:", description="Prefix of every Redis key the maintenance lock writes.")
    maintain_lock_ttl_s: int = Field(
        120, description="The pass's Redis lock lapses this long after its holder stops renewing it (killed worker)."
    )
    task_redeliver_s: int = Field(
        3600,
        gt=0,
        description="A Celery task that a worker took and never finished (the worker was killed, its machine went "
        "off) is handed to another worker this many seconds after it was taken. It must exceed the longest task: a "
        "page analysis (up to attempts x the model's timeout); an embedding batch takes seconds.",
    )
    analysis_attempts: int = Field(3, description="Calls per page before a reply failing the JSON schema fails it.")
    analysis_reply_tokens: int = Field(768, description="Tokens reserved in the window for one analysis reply.")
    analysis_chars_per_token: float = Field(
        3.0, description="Conservative estimate that sizes extraction windows; the truncation gate checks the truth."
    )
    extraction_overlap_chars: int = Field(
        600, description="Characters consecutive extraction windows share, so a name on a boundary is read whole."
    )
    concept_pages_per_pass: int = Field(50, description="Growth-queue names considered for a concept page per pass.")
    concept_max_paragraphs: int = Field(12, description="Paragraphs put to the model per concept (definition gate).")
    resolve_max_pairs: int = Field(40, description="Candidate name pairs asked 'same, different or unclear?' per pass.")
    resolve_min_similarity: float = Field(
        0.75, description="Spelling similarity (0..1) from which an unresolved name and a title become a pair."
    )

    conversation: ProviderSettings = Field(default_factory=ProviderSettings)
    extraction: ProviderSettings = Field(default_factory=ProviderSettings)
    summary: ProviderSettings = Field(default_factory=ProviderSettings)

    openwebui: OpenWebUISettings = Field(default_factory=OpenWebUISettings)
    pool: PoolSettings = Field(default_factory=PoolSettings)
    chat: ChatSettings = Field(default_factory=ChatSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    research: ResearchSettings = Field(default_factory=ResearchSettings)
