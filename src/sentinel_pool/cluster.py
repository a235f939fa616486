"""The pool as people look at it (``/api/cluster``), and waking a node that is asleep (wake-on-LAN)."""

from __future__ import annotations

import time
from typing import Any

import wakeonlan

from sentinel.errors import NotFound
from sentinel_pool.registry import KnownNode, Snapshot
from sentinel_pool.routing import pool_models


class WakeRefused(NotFound, LookupError):
    """The node cannot be woken from here; the message says why and what to do."""


def cluster_view(snapshot: Snapshot, known: dict[str, KnownNode]) -> dict[str, Any]:
    """Live nodes with their backends, models, free VRAM and jobs in flight; nodes seen before but silent now
    are listed as ``away`` (asleep, off, or their agent stopped), with when they were last seen."""
    now = time.time()
    nodes: list[dict[str, Any]] = []
    for record in snapshot.nodes:
        backends = [
            backend.model_dump() | {"jobs_in_flight": snapshot.active.get((record.node, backend.url), 0)}
            for backend in record.backends
        ]
        nodes.append(
            {
                "node": record.node,
                "state": "up",
                "seen_s_ago": round(now - record.seen_at, 1),
                "vram_free_mb": record.vram_free_mb,
                "vram_total_mb": record.vram_total_mb,
                "jobs_in_flight": snapshot.active_on(record.node),
                "wakeable": bool(record.mac),
                "agent": record.agent,
                "backends": backends,
            }
        )
    up = {record.node for record in snapshot.nodes}
    for name, seen in known.items():
        if name not in up:
            nodes.append(
                {
                    "node": name,
                    "state": "away",
                    "seen_s_ago": round(now - seen.last_seen, 1),
                    "wakeable": bool(seen.mac),
                }
            )
    return {
        "nodes": nodes,
        "models": pool_models(snapshot),
        "totals": {
            "nodes_up": len(snapshot.nodes),
            "nodes_away": len(nodes) - len(snapshot.nodes),
            "jobs_in_flight": sum(snapshot.active.values()),
            "vram_free_mb": sum(record.vram_free_mb or 0 for record in snapshot.nodes),
        },
    }


def wake(known: dict[str, KnownNode], node: str, address: str, port: int) -> str:
    """Send the wake-on-LAN magic packet for ``node`` to ``address:port``; returns the MAC it was sent for."""
    seen = known.get(node)
    if seen is None:
        names = ", ".join(known) or "none yet"
        raise WakeRefused(f"node {node!r} has never registered with the pool (known nodes: {names})")
    if not seen.mac:
        raise WakeRefused(
            f"node {node!r} registered no MAC address: start its agent with --mac aa:bb:cc:dd:ee:ff "
            "(or SENTINEL_POOL__MAC) once, while it is awake"
        )
    wakeonlan.wake(seen.mac, host=address, port=port)
    return seen.mac
