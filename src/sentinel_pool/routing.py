"""Where a request runs: every live backend that serves the model, scored, best first, with the reasons.

The weights put the factors in a strict order of cost: a model that must be loaded first costs seconds to
minutes (loaded dominates), a backend with every slot busy makes the request queue (full comes next), each job
already in flight shares the backend's compute, and free VRAM only separates otherwise equal nodes. Ties are
broken by node name, then backend URL, so the same pool state always gives the same choice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sentinel.providers.servers import OLLAMA, speaks
from sentinel_pool.registry import BackendKind, BackendRecord, Snapshot

LOADED = 1000.0  # the model is in memory: no load before the first token
FULL = -500.0  # every slot is busy: the request would wait in the backend's queue
HEADROOM = 100.0  # times the share of slots that are free
PER_JOB = -50.0  # per job the pool has in flight on the backend
PER_FREE_GIB = 1.0  # per GiB of free VRAM, capped: a tie-breaker between otherwise equal nodes
FREE_GIB_CAP = 100.0


@dataclass(frozen=True)
class Candidate:
    node: str
    url: str  # the backend's OpenAI-compatible base
    kind: BackendKind
    model: str  # the model's name on that backend
    score: float
    reasons: tuple[str, ...]
    full: bool = False  # every slot it says it has is busy
    slots: int = 0  # the requests it takes at once, as it says (llama.cpp's /props); 0: it does not say

    def as_log(self) -> dict[str, Any]:
        return {"node": self.node, "url": self.url, "score": round(self.score, 1), "reasons": list(self.reasons)}


def served_name(backend: BackendRecord, model: str) -> str | None:
    """The backend's own name for ``model``, or None. On a server that speaks Ollama's dialect a name without a
    tag means ``:latest``."""
    if model in backend.models:
        return model
    if ":" not in model and f"{model}:latest" in backend.models and speaks(backend.kind, OLLAMA):
        return f"{model}:latest"
    return None


def _score(backend: BackendRecord, name: str, in_flight: int, vram_free_mb: int | None) -> tuple[float, list[str]]:
    score, reasons = 0.0, []
    if name in backend.loaded:
        score += LOADED
        reasons.append(f"model loaded (+{LOADED:.0f})")
    else:
        reasons.append("model not loaded: it loads before the first token (+0)")
    if backend.slots:
        free = backend.slots - in_flight
        if free <= 0:
            score += FULL
            reasons.append(f"all {backend.slots} slots busy ({FULL:.0f})")
        else:
            gain = HEADROOM * free / backend.slots
            score += gain
            reasons.append(f"{free}/{backend.slots} slots free (+{gain:.0f})")
    else:
        reasons.append("slot count unknown (+0)")
    if in_flight:
        score += PER_JOB * in_flight
        reasons.append(f"{in_flight} jobs in flight from the pool ({PER_JOB * in_flight:.0f})")
    if vram_free_mb is None:
        reasons.append("free VRAM unknown (+0)")
    else:
        gain = PER_FREE_GIB * min(vram_free_mb / 1024, FREE_GIB_CAP)
        score += gain
        reasons.append(f"{vram_free_mb / 1024:.1f} GiB VRAM free (+{gain:.1f})")
    return score, reasons


def rank(snapshot: Snapshot, model: str) -> list[Candidate]:
    """Every healthy backend serving ``model``, best first (deterministic for a given snapshot)."""
    candidates = []
    for record in snapshot.nodes:
        for backend in record.backends:
            name = served_name(backend, model) if not backend.problem else None
            if name is None:
                continue
            in_flight = snapshot.active.get((record.node, backend.url), 0)
            score, reasons = _score(backend, name, in_flight, record.vram_free_mb)
            full = bool(backend.slots) and in_flight >= (backend.slots or 0)
            candidates.append(
                Candidate(record.node, backend.url, backend.kind, name, score, tuple(reasons), full, backend.slots or 0)
            )
    return sorted(candidates, key=lambda c: (-c.score, c.node, c.url))


def pool_models(snapshot: Snapshot) -> dict[str, list[str]]:
    """Every model some healthy backend serves, with the nodes that serve it (sorted)."""
    models: dict[str, set[str]] = {}
    for record in snapshot.nodes:
        for backend in record.backends:
            if not backend.problem:
                for name in backend.models:
                    models.setdefault(name, set()).add(record.node)
    return {name: sorted(nodes) for name, nodes in sorted(models.items())}
