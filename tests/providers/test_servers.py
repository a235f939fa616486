"""One ModelServer type: a kind registered once is known to settings, the pool's agent, setup and provider_for,
and one no module registered is refused by each, naming the known kinds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from sentinel.providers import provider_for, servers
from sentinel.providers.servers import (
    OLLAMA,
    OPENAI,
    ModelServer,
    Probe,
    UnknownKind,
    kind_names,
    register_kind,
    speaks,
)
from sentinel.settings import ProviderSettings
from sentinel_pool.probe import BackendSpec, BackendSpecInvalid
from tests.support.scripted import ScriptedProvider


@pytest.fixture
def with_a_new_kind() -> Iterator[None]:
    kinds = dict(servers._kinds())
    yield
    servers._KINDS.clear()
    servers._KINDS.update(kinds)


def test_the_shipped_kinds_and_their_dialects() -> None:
    import sentinel.providers.ollama  # noqa: F401  # imported first: the other kinds are still known

    assert kind_names() == ("ollama", "openai")
    assert ModelServer("ollama", "http://h:11434").openai_base == "http://h:11434/v1"
    assert ModelServer("openai", "http://h:8080/v1/").root == "http://h:8080"
    assert ModelServer("ollama", "http://h:11434").dialects == ("ollama", "openai")


def test_a_registered_kind_is_known_everywhere(with_a_new_kind: None) -> None:
    made: list[ProviderSettings] = []

    @register_kind
    class Vllm:
        name = "vllm"
        dialects = ("openai",)
        describe = "'vllm=http://host:8000/v1'"

        def openai_base(self, url: str) -> str:
            return url

        def probe(self, http: httpx.Client, server: ModelServer) -> Probe:
            return Probe(models=["m"], loaded=["m"])

        def runtime_params(self, role: ProviderSettings) -> dict[str, Any]:
            return {"tensor_parallel": 2}

        def provider(self, role: ProviderSettings) -> ScriptedProvider:
            made.append(role)
            return ScriptedProvider([])

    role = ProviderSettings(kind="vllm", base_url="http://h:8000/v1", model="m")
    assert isinstance(provider_for(role), ScriptedProvider) and made == [role]
    assert BackendSpec.parse("vllm=http://h:8000/v1").kind == "vllm"
    assert ModelServer.of(role).spec.runtime_params(role) == {"tensor_parallel": 2}


def test_an_unknown_kind_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ValidationError, match="known kinds are ollama, openai"):
        ProviderSettings(kind="vllm", base_url="http://h:8000/v1", model="m")
    with pytest.raises(BackendSpecInvalid, match="'ollama=http://host:11434'"):
        BackendSpec.parse("vllm=http://h:8000/v1")
    with pytest.raises(UnknownKind):
        ModelServer("vllm", "http://h").openai_base  # noqa: B018


def test_what_each_kind_speaks_is_its_registration() -> None:
    """The pool routes by ``speaks``: the kind's registered dialects. A kind no module here registered (a record a
    newer node published) is reached by OpenAI's dialect only, never handed Ollama's own requests."""
    assert speaks("ollama", OLLAMA) and speaks("ollama", OPENAI)
    assert speaks("openai", OPENAI) and not speaks("openai", OLLAMA)
    assert speaks("from-a-newer-node", OPENAI) and not speaks("from-a-newer-node", OLLAMA)
