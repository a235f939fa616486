"""The model roles the pass uses: extraction (concepts, definitions, name questions) and summary."""

from __future__ import annotations

from dataclasses import dataclass

from sentinel.providers import ChatProvider, provider_for
from sentinel.settings import Settings


@dataclass(frozen=True)
class Models:
    extraction: ChatProvider
    summary: ChatProvider  # reads long pages whole; the extraction provider when no summary role is set
    label: str  # recorded with each analysis: which model(s) produced it


def models_from_settings(settings: Settings) -> Models:
    """Providers for the two analysis roles; the summary role falls back to extraction when it has no model."""
    extraction = provider_for(settings.extraction, "extraction")
    if not settings.summary.model.strip():
        return Models(extraction, extraction, settings.extraction.model)
    summary = provider_for(settings.summary, "summary")
    return Models(extraction, summary, f"{settings.extraction.model} + summary {settings.summary.model}")
