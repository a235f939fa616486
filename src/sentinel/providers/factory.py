"""One place that turns a role's settings into a provider."""

from __future__ import annotations

from sentinel.providers.base import ChatProvider, ProviderNotConfigured
from sentinel.providers.servers import ModelServer
from sentinel.settings import ProviderSettings


def provider_for(role_settings: ProviderSettings, role: str | None = None) -> ChatProvider:
    """The provider for one role (``conversation``, ``extraction`` or ``summary``).

    ``role`` only sharpens the error: a role without a model is refused with the settings to set.
    """
    if not role_settings.model.strip():
        where = (
            f"SENTINEL_{role.upper()}__MODEL (and __KIND, __BASE_URL)"
            if role
            else "the role's model (and kind, base_url)"
        )
        raise ProviderNotConfigured(
            f"No model is configured for the {role or 'requested'} role: set {where}, e.g. kind=openai, "
            "base_url=http://127.0.0.1:8080/v1, model=<name the server knows>."
        )
    return ModelServer.of(role_settings).spec.provider(role_settings)
