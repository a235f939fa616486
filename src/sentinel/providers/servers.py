"""What a model server is, worked out once: its kind, its root URL, how it is probed, which runtime parameters
it takes, which wire dialects it speaks, and the chat provider that talks to it.

The maintenance pass (is the analysis model loaded, does it fit), Open WebUI setup (runtime parameters), the
pool's agent (what each backend serves), the CLI (which kinds there are) and ``provider_for`` all ask a
``ModelServer``. A kind is one module that defines a ``ServerKind`` and registers it with ``register_kind``, and
one line naming that module in ``KIND_MODULES`` (txtai's factory shape): nothing else lists the kinds.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import httpx

from sentinel.errors import BadInput
from sentinel.serving import root_url

if TYPE_CHECKING:
    from sentinel.providers.base import ChatProvider
    from sentinel.settings import ProviderSettings

# Every kind's module, imported on the first question about kinds (a kind's client library is imported only when
# its provider is built, so probing a server needs no optional extra).
KIND_MODULES = ("sentinel.providers.openai_compat", "sentinel.providers.ollama")

# The wire dialects a kind may speak. Every backend is reached by OpenAI's (at its ``openai_base``); one that also
# speaks Ollama's gets Ollama's requests (``/api/chat``, ``/api/pull``...) as they came, at its root.
OPENAI = "openai"
OLLAMA = "ollama"


@dataclass
class Probe:
    """What a model server says about itself now."""

    models: list[str] = field(default_factory=list)  # what it can serve
    loaded: list[str] = field(default_factory=list)  # what is in memory now
    sizes: dict[str, int] = field(default_factory=dict)  # bytes per model, where the server says
    slots: int | None = None  # parallel requests it takes, where it says
    awake: bool | None = None  # llama.cpp's sleep: False while it has unloaded its model; None: it cannot say


class ServerKind(Protocol):
    name: str  # what settings call it (``SENTINEL_<ROLE>__KIND``, an agent's ``kind=url``)
    dialects: tuple[str, ...]  # the wire APIs it speaks: OPENAI, OLLAMA
    describe: str  # how its URL is written, for help texts and refusals

    def openai_base(self, url: str) -> str:
        """Where OpenAI-shaped requests go."""
        ...

    def probe(self, http: httpx.Client, server: ModelServer) -> Probe: ...

    def runtime_params(self, role: ProviderSettings) -> dict[str, Any]:
        """What a client (Open WebUI) must set per request for the model to run as configured."""
        ...

    def provider(self, role: ProviderSettings) -> ChatProvider: ...


_KINDS: dict[str, ServerKind] = {}
K = TypeVar("K")


def register_kind(kind: Callable[[], K]) -> Callable[[], K]:
    """Class decorator: one instance of the kind, known by its ``name`` from now on."""
    made: Any = kind()
    _KINDS[made.name] = made
    return kind


def _kinds() -> dict[str, ServerKind]:
    for module in KIND_MODULES:  # every one, whichever was imported first (importing again costs a dict lookup)
        importlib.import_module(module)
    return _KINDS


def kind_names() -> tuple[str, ...]:
    """The registered kinds, sorted: the same order however the modules happened to be imported."""
    return tuple(sorted(_kinds()))


def speaks(kind: str, dialect: str) -> bool:
    """Whether a server of ``kind`` speaks ``dialect``: what the pool routes by, never the kind's name. A kind this
    process has no module for (a record a newer node published) is taken to speak OpenAI's dialect only, the one
    every backend is reached by."""
    known = _kinds().get(kind)
    return dialect in known.dialects if known is not None else dialect == OPENAI


class UnknownKind(BadInput, ValueError):
    """A kind no module registered; the message lists the known ones."""


def server_kind(name: str) -> ServerKind:
    kinds = _kinds()
    if name not in kinds:
        raise UnknownKind(f"no model server kind {name!r}: known kinds are {', '.join(kind_names())}")
    return kinds[name]


@dataclass(frozen=True)
class ModelServer:
    kind: str
    url: str  # as configured: Ollama's root, or an OpenAI-compatible base up to /v1

    @classmethod
    def of(cls, role: ProviderSettings) -> ModelServer:
        return cls(role.kind, role.base_url)

    @property
    def spec(self) -> ServerKind:
        return server_kind(self.kind)

    @property
    def root(self) -> str:
        return root_url(self.url)

    @property
    def openai_base(self) -> str:
        return self.spec.openai_base(self.url)

    @property
    def dialects(self) -> tuple[str, ...]:
        return self.spec.dialects

    def probe(self, http: httpx.Client) -> Probe:
        """What it serves now; raises ``httpx.HTTPError`` or ``ValueError`` when it does not say."""
        return self.spec.probe(http, self)


def get_json(http: httpx.Client, url: str) -> Any:
    response = http.get(url)
    response.raise_for_status()
    return response.json()
